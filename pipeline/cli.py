"""``mlperf-ledger``: the command line. Every run goes through Dagster."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from pipeline import origin, settings
from pipeline.manifest import is_version
from pipeline.redact import redact_text
from pipeline.registry.releases import ManifestError, load_manifest
from pipeline.runlock import BusyError, FolderError
from pipeline.snapshots import StoreError
from pipeline.source import SourceError

#: Exit codes besides 0 (success) and 1 (a run failed).
EXIT_USAGE = 2
EXIT_BUSY = 3
#: Commands that read the source and write the data directory.
WRITING = ("ingest", "site", "update", "watch")
#: How often ``watch`` compares every stored round with the source by content.
THOROUGH_EVERY_S = 24 * 3600


class UsageError(ValueError):
    """A command-line value is unusable; the message names the option and the cause."""


def _given(args: argparse.Namespace, option: str, variable: str) -> tuple[str, str]:
    """The value the user gave (flag first, then environment) and how to name it."""
    value = getattr(args, option.removeprefix("--").replace("-", "_"), None)
    if value:
        return value, option
    return os.environ.get(variable, "").strip(), variable


def _check_release(value: str) -> None:
    if not is_version(value):
        shown = (
            repr(value)
            if len(value) <= 40
            else f"{value[:40]!r}… ({len(value)} characters)"
        )
        raise UsageError(f"--release {shown}: expected a version like v6.1")


def _check_writable(folder: Path, shown: str) -> None:
    """Refuse at the start a folder a run would only fail to write at its end."""
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise UsageError(
            f"{shown} {str(folder)!r}: cannot write there "
            f"({exc.strerror or type(exc).__name__})"
        ) from None


def _check_args(args: argparse.Namespace) -> None:
    """Refuse malformed values before anything is created or fetched."""
    releases = getattr(args, "release", None)
    for value in [releases] if isinstance(releases, str) else releases or []:
        _check_release(value)
    if getattr(args, "version", None) is not None:
        _check_release(args.version)
    for option in ("top", "interval"):
        number = getattr(args, option, None)
        if number is not None and number < 1:
            raise UsageError(f"--{option} {number}: expected a whole number >= 1")
    # Every variable and flag is checked where it is read (settings), so a run
    # started by the Dagster daemon refuses the same values; here they are read
    # before anything is created.
    value, shown = _given(args, "--data-dir", "MLPERF_DATA_DIR")
    settings.check_folder(shown, value)
    if args.command in WRITING:
        value, shown = _given(args, "--source", "MLPERF_SOURCE")
        settings.check_source(shown, value)
        settings.check_environment()
        _check_writable(settings.cache_dir(), "the cache folder (MLPERF_CACHE_DIR)")


def _apply_environment(args: argparse.Namespace) -> None:
    # How the user named the data directory, for messages about it.
    value, name = _given(args, "--data-dir", "MLPERF_DATA_DIR")
    args.data_shown = f"{name} {value!r}" if value else None
    # Resources read these, so flags and environment variables behave the same.
    if getattr(args, "source", None):
        os.environ["MLPERF_SOURCE"] = args.source
    if getattr(args, "data_dir", None):
        os.environ["MLPERF_DATA_DIR"] = args.data_dir


#: Control characters (C0, DEL, C1): upstream names are printed, and an ANSI or OSC
#: escape in one would drive the reader's terminal.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def printable(value: object) -> str:
    """A value as terminal text: control characters as "?", no URL's credentials."""
    return _CONTROL.sub("?", redact_text(str(value)))


def say(line: str) -> None:
    """Print one progress line; upstream names in it cannot drive the terminal."""
    print(printable(line))


def _table(rows: list[dict]) -> str:
    if not rows:
        return "(nothing yet)"
    columns = list(rows[0])
    cells = [{c: printable(r[c]) for c in columns} for r in rows]
    widths = {c: max(len(c), *(len(r[c]) for r in cells)) for c in columns}
    lines = ["  ".join(c.ljust(widths[c]) for c in columns)]
    lines += ["  ".join(r[c].ljust(widths[c]) for c in columns) for r in cells]
    return "\n".join(line.rstrip() for line in lines)


def cmd_ingest(args: argparse.Namespace) -> int:
    """Fetch, store, normalise and check releases; exit 1 if any failed."""
    from pipeline import runner

    versions = args.release or [r.version for r in load_manifest()]
    site = args.command == "site"
    with runner.exclusive(data_shown=args.data_shown, build=site) as instance:
        _claim_source(args)
        say(f"source: {settings.source_base()}")
        say(f"data:   {settings.data_dir()}")
        outcomes = runner.ingest(instance, versions, progress=say, site=site)
    failed = [o for o in outcomes if not o.success]
    if failed:
        print(
            f"{len(failed)} run(s) failed: {', '.join(o.label for o in failed)}",
            file=sys.stderr,
        )
        return 1
    return 0


def cmd_update(args: argparse.Namespace) -> int:
    """One discovery tick, the runs it requests, then the cross-release assets."""
    if _quiet(args):
        print("nothing new or changed upstream: no run requested")
        return 0
    from pipeline import runner, update

    with runner.exclusive(data_shown=args.data_shown, build=True) as instance:
        _claim_source(args)
        outcomes = update.update(instance, progress=say, thorough=args.full)
    failed = [o for o in outcomes if not o.success]
    return 1 if failed else 0


def _claim_source(args: argparse.Namespace) -> None:
    """Record the source this data folder is read from (see ``pipeline.origin``)."""
    data = settings.data_dir()
    try:
        origin.claim(data, settings.source_base(), switch=args.switch_source)
    except OSError as exc:
        raise StoreError(
            f"cannot record the source in {data / origin.SOURCE_FILE}: "
            f"{exc.strerror or type(exc).__name__}"
        ) from None


def _quiet(args: argparse.Namespace) -> bool:
    """A tick with nothing to do, checked without Dagster (see ``quiet_tick``)."""
    from pipeline.discovery import quiet_tick
    from pipeline.pending import pending
    from pipeline.runlock import hold

    data = settings.data_dir()
    if pending(data):
        return False  # an unpublished change from an earlier tick is retried
    source = settings.open_source()
    try:
        with hold(data, args.data_shown):
            _claim_source(args)  # a quiet tick reads the source too
            return quiet_tick(source, data, thorough=args.full)
    except SourceError:
        return False  # the full tick reports it, with its usual wording


def cmd_watch(args: argparse.Namespace) -> int:
    """``update`` every interval until interrupted."""
    print(f"watching every {args.interval} s (Ctrl-C to stop)", flush=True)
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    try:
        _watch(args)
    finally:  # the caller's handlers back (a test calling main in-process)
        signal.signal(signal.SIGINT, before[0])
        signal.signal(signal.SIGTERM, before[1])
    return 0


def _watch(args: argparse.Namespace) -> None:
    from pipeline import runner, update

    verified = -math.inf  # the first tick compares every stored round by content
    while True:
        # A run may replace the process's signal handlers (Dagster installs its own
        # while it executes) and not give them back: before every tick and every
        # wait, Ctrl-C and SIGTERM stop the watch again.
        _stop_on_signals()
        # Once a day, stored rounds are compared by content whatever validators say
        # (a server whose ETag missed a change); other ticks probe.
        thorough = time.monotonic() - verified >= THOROUGH_EVERY_S
        print(
            time.strftime("%Y-%m-%d %H:%M:%S"),
            "tick (verifying stored rounds by content)" if thorough else "tick",
        )
        try:  # held per tick, so an `ingest` may run between ticks
            with runner.exclusive(data_shown=args.data_shown, build=True) as instance:
                _claim_source(args)
                update.update(instance, progress=say, thorough=thorough)
            if thorough:
                verified = time.monotonic()
        except BusyError as exc:
            print(printable(f"tick skipped: {exc}"), file=sys.stderr)
        _stop_on_signals()
        print("tick done; next in", args.interval, "s", flush=True)
        time.sleep(args.interval)


class Stopped(KeyboardInterrupt):
    """SIGTERM asked the watch to stop (Ctrl-C raises KeyboardInterrupt itself)."""


def _raise_stopped(signum: int, frame: object) -> NoReturn:
    raise Stopped(f"signal {signum}")


def _stop_on_signals() -> None:
    """SIGINT raises KeyboardInterrupt and SIGTERM :class:`Stopped`: exit 130 / 143."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _raise_stopped)


def cmd_forget(args: argparse.Namespace) -> int:
    """Remove what is stored for one release, saying what goes."""
    from pipeline import forget, runner

    with runner.exclusive(data_shown=args.data_shown) as instance:
        forget.forget(instance, args.version, progress=say)
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    """Print what is stored for each release."""
    from pipeline import runner, status
    from pipeline.pending import status_lines

    try:  # when no run is going on, settle what a killed run left unfinished
        with runner.exclusive(data_shown=args.data_shown) as instance:
            rows = status.release_status(instance)
    except FolderError:  # a run is going on, or the folder is read-only: just read
        rows = status.release_status(runner.get_instance())
    print(_table(rows))
    for line in status_lines(settings.data_dir()):
        say(line)
    return 0


#: Derived tables the CLI can rank: command -> (asset, release column, label).
PAIR_TABLES = {
    "gains": ("out_mlperf__software_gains", "release_new", "software-only gains"),
    "generations": (
        "out_mlperf__generation_ratios",
        "release_new",
        "hardware-generation ratios",
    ),
    "scaling": ("out_mlperf__scaling", "release_new", "scaling efficiency"),
}


def cmd_pairs(args: argparse.Namespace) -> int:
    """Print the top-N of a derived table, both ends cited."""
    import polars as pl

    from pipeline.analysis.plausibility import unflagged

    asset, release_column, label = PAIR_TABLES[args.command]
    path = settings.data_dir() / "assets" / asset / "_.parquet"
    if not path.exists():
        print(
            f"error: {asset} has not been built yet; run `make site` first",
            file=sys.stderr,
        )
        return 1
    table = pl.scan_parquet(path)
    if args.release:
        table = table.filter(pl.col(release_column) == args.release)
    if args.level:
        table = table.filter(pl.col("identity_level") == args.level)
    if not args.include_flagged:
        table = table.filter(unflagged())
    value = "efficiency" if args.command == "scaling" else "ratio"
    ranked = (
        table.sort(value, descending=True)
        .head(args.top)
        .select(
            pl.col("identity_level").alias("level"),
            "benchmark",
            "scenario",
            "division",
            pl.format(
                "{} {} ({} chips)",
                "release_old",
                "platform_old",
                "total_accelerators_old",
            ).alias("old"),
            pl.format(
                "{} {} ({} chips)",
                "release_new",
                "platform_new",
                "total_accelerators_new",
            ).alias("new"),
            pl.col(value).round(3).alias(value),
            pl.format("{} -> {}", "result_key_old", "result_key_new").alias("cites"),
            *([pl.col("flags").list.join(", ")] if args.include_flagged else []),
        )
        .collect()
    )
    print(f"{label} (derived, unofficial; not MLPerf results)")
    print(_table(ranked.to_dicts()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (kept separate so tests can inspect it)."""
    parser = argparse.ArgumentParser(
        prog="mlperf-ledger",
        description="Versioned MLPerf Inference results, derived cross-round metrics.",
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--source",
        help="mirror folder or HTTP base (default: $MLPERF_SOURCE, else upstream)",
    )
    common.add_argument(
        "--data-dir",
        help="where snapshots and tables go (default: $MLPERF_DATA_DIR or data/)",
    )
    # Commands that read the source into the data folder (``WRITING``).
    reading = argparse.ArgumentParser(add_help=False, parents=[common])
    reading.add_argument(
        origin.SWITCH_FLAG,
        action="store_true",
        help="read this data folder from another source than it was built from, "
        "from now on; the differences are not counted as upstream corrections",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    ingest = sub.add_parser(
        "ingest", parents=[reading], help="fetch and normalise releases"
    )
    ingest.add_argument(
        "--release",
        action="append",
        metavar="vX.Y",
        help="only this release (repeatable; default: every release in the manifest)",
    )
    ingest.set_defaults(func=cmd_ingest)
    site = sub.add_parser(
        "site",
        parents=[reading],
        help="ingest every release, then render, build and publish the website",
    )
    site.set_defaults(func=cmd_ingest, release=None)
    status = sub.add_parser(
        "status", parents=[common], help="what is stored per release"
    )
    status.set_defaults(func=cmd_status)
    update = sub.add_parser(
        "update",
        parents=[reading],
        help="discover new or corrected releases and rebuild what they change",
    )
    update.add_argument(
        "--full",
        action="store_true",
        help="compare every stored round with the source by content, whatever its "
        "validators say (watch does this once a day)",
    )
    update.set_defaults(func=cmd_update)
    forget = sub.add_parser(
        "forget",
        parents=[common],
        help="remove what is stored for one release (snapshots, tables, validators)",
    )
    forget.add_argument("version", metavar="vX.Y", help="the release, e.g. v6.1")
    forget.set_defaults(func=cmd_forget)
    watch = sub.add_parser("watch", parents=[reading], help="update on an interval")
    watch.add_argument(
        "--interval", type=int, default=3600, help="seconds between ticks (3600)"
    )
    watch.set_defaults(func=cmd_watch)
    for name, (_, _, label) in PAIR_TABLES.items():
        pairs = sub.add_parser(name, parents=[common], help=f"top {label}")
        pairs.add_argument("--release", metavar="vX.Y", help="newer end's release")
        pairs.add_argument("--level", help="identity level / reading to keep")
        pairs.add_argument("--top", type=int, default=20, help="rows (default 20)")
        pairs.add_argument(
            "--include-flagged",
            action="store_true",
            help="also list pairs a plausibility rule flagged (with their flags)",
        )
        pairs.set_defaults(func=cmd_pairs)
    return parser


def _end_process(code: int) -> NoReturn:
    """End the process now that its work is written: no interpreter teardown.

    Tearing down a process that loaded Dagster, Polars and the pipeline (freeing
    every module and object one by one) took 0.9-1.0 s after ``site`` had finished.
    Every file is closed by then (each write is a ``with`` block or an atomic
    replace, Dagster's SQLite connections are closed after each use), so what
    teardown still owes is done first: the exit handlers (temporary folders,
    Dagster's and the libraries' own), logging's flush, and the standard streams.
    """
    import atexit
    import logging

    atexit._run_exitfuncs()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        # A closed or broken pipe: nothing more can be said.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script.

    Without ``argv`` (the process's own command line: the console script, ``python
    -m pipeline.cli``) the process ends here, without teardown (``_end_process``);
    given ``argv`` (tests, other Python code) it returns the exit code.
    """
    code = _main(argv)
    if argv is None:
        _end_process(code)
    return code


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    try:
        _check_args(args)
        _apply_environment(args)
        if args.command in WRITING:  # refused before any work; recorded when held
            origin.check(
                settings.data_dir(), settings.source_base(), switch=args.switch_source
            )
        return args.func(args)
    except BusyError as exc:
        print(printable(f"error: {exc}"), file=sys.stderr)
        return EXIT_BUSY
    except (
        UsageError,
        settings.SettingError,
        ManifestError,
        FolderError,
        origin.OtherSource,
    ) as exc:
        print(printable(f"error: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except StoreError as exc:
        # A write the data folder or Dagster's storage refused; what was seen
        # upstream stays pending (``pipeline.pending``) for the next update.
        print(printable(f"error: {exc}"), file=sys.stderr)
        return 1
    except OSError as exc:
        # A file the command itself reads or writes (the discovery cursor, the
        # partition list): the path and the cause, never a bare errno.
        from pipeline.pending import disk_cause

        where = f"{exc.filename}: " if exc.filename is not None else ""
        print(printable(f"error: {where}{disk_cause(exc)}"), file=sys.stderr)
        return 1
    except SourceError as exc:
        # Discovery probes outside any run (update, watch): the source is unreachable.
        print(printable(f"error: the source could not be read: {exc}"), file=sys.stderr)
        return 1
    except Stopped:
        print("stopped (SIGTERM)", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("stopped (Ctrl-C)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
