"""The Performance page's sections, from the committed bench results (``make bench``).

Every value is read defensively (a file of another schema names what it lacks, it
never stops the site); the Performance page (``performance_page``) puts the sections
in order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pipeline import settings
from pipeline.render.safe import Md, md_join
from pipeline.render.tables import rows_table

#: The committed results the page shows, relative to the project root.
RESULTS_FILE = settings.BENCH_RESULTS_FILE


#: Verdict marks as text badges: an emoji needs a font many machines lack.
_MARKS = {
    True: Md('<span class="ledger-badge ledger-badge--pass">pass</span>'),
    False: Md('<span class="ledger-badge ledger-badge--fail">fail</span>'),
    None: Md("— not measured"),
}


_DASH = Md("—")


def _number(value: object) -> float | None:
    """A number from the results file, or None for anything that is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _seconds(value: object) -> Md:
    number = _number(value)
    if number is None:
        return _DASH
    if number >= 100:
        return Md("{:,.0f} s").format(number)
    if number >= 10:
        return Md("{:.1f} s").format(number)
    if number >= 1:
        return Md("{:.2f} s").format(number)
    return Md("{:.3f} s").format(number)


def _bytes(value: object) -> Md:
    number = _number(value)
    if number is None:
        return _DASH
    if number >= 1e9:
        return Md("{:,.2f} GB").format(number / 1e9)
    if number >= 1e6:
        return Md("{:,.1f} MB").format(number / 1e6)
    return Md("{:,.0f} kB").format(number / 1e3)


def _count(value: object) -> Md:
    number = _number(value)
    return _DASH if number is None else Md("{:,.0f}").format(number)


def _value(value: object, unit: object) -> Md:
    """A target's measured value in the target's own unit."""
    number = _number(value)
    if number is None:
        return _DASH
    if unit == "s":
        return _seconds(number)
    if unit == "share":
        return Md("{:.1f} %").format(number * 100)
    if unit == "x":
        return Md("×{:,.1f}").format(number)
    if unit in ("GB", "MB"):
        return Md("{:,.2f} {}").format(number, unit)
    return Md("{:.2f}").format(number)


def _code(value: object) -> Md:
    """Escaped text in ``<code>``: a Markdown code span would show the entities."""
    return Md("<code>{}</code>").format(str(value))


def _table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> Md:
    """A Markdown table: headers of code, cells escaped unless they are ``Md``."""
    return rows_table(header, rows)


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: object) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def intro(results: Mapping[str, Any]) -> str:
    """What the page measures, on which machine, how often."""
    machine = _mapping(results.get("machine"))
    repeat = _count(results.get("repeat"))
    date = str(machine.get("date", "an unknown date"))
    text = Md(
        "What building this site costs, measured by `make bench` "
        "(`benchmarks/bench.py`) on {} and committed as `{}`; "
        "the page shows that file, whatever was run on the machine that built the "
        "site. Each figure is the **median of "
        "{} repetition(s)**, each run in a "
        "fresh process against the local mirror. The builds and updates are timed as "
        "whole `mlperf-ledger` processes, the analytics as their assets materialised "
        "in one Dagster run, as production runs them. Every figure is also given as "
        "a multiple of its **floor**, measured in the same run: the least work the "
        "same result needs (reading and parsing the input files, importing Dagster, "
        "a plain mkdocs build of as many pages). Peak RSS is "
        "the largest resident memory of any process of the measurement "
        "(`ru_maxrss` from `wait4`). Numbers from another machine or commit will "
        "differ; the machine is described at the end.\n"
    ).format(date, RESULTS_FILE, repeat)
    if results.get("quick"):
        text += Md(
            '\n!!! warning "Smoke run"\n    These numbers come from `make bench` '
            "with `--quick` (one repetition, no x100 scale); run `make bench` for "
            "the real figures.\n"
        )
    return text


def _ratio(value: object) -> Md:
    """A multiple of the floor (``×12.3``), or a dash."""
    number = _number(value)
    return _DASH if number is None else Md("×{:,.1f}").format(number)


def targets(results: Mapping[str, Any]) -> str:
    """Each target of the bench and whether it is met."""
    rows = []
    for target in _list(results.get("targets")):
        target = _mapping(target)
        passed = target.get("passed")
        goal = Md.escape(str(target.get("target", "")))
        note = target.get("note")
        if note:
            goal += Md(" ({})").format(str(note))
        rows.append(
            (
                str(target.get("label", "")),
                _value(target.get("value"), target.get("unit")),
                _ratio(target.get("ratio")),
                goal,
                _MARKS.get(passed if isinstance(passed, bool) else None),
            )
        )
    if not rows:
        return ""
    return Md("## Targets\n\n") + _table(
        ("Target", "Measured", "× floor", "Goal", "Result"), rows
    )


def _label(item: Mapping[str, Any]) -> Md:
    return Md.escape(str(item.get("label", item.get("name", ""))))


def measurements(results: Mapping[str, Any]) -> str:
    """Every measurement with its median and spread."""
    rows = []
    for item in _list(results.get("measurements")):
        item = _mapping(item)
        if item.get("role") == "floor":
            continue
        repetitions = md_join(
            ", ", (_seconds(s) for s in _list(item.get("repetitions_s")))
        )
        rows.append(
            (
                _label(item),
                _seconds(item.get("median_s")),
                repetitions or "—",
                _seconds(item.get("floor_s")),
                _ratio(item.get("ratio")),
                _bytes(item.get("peak_rss_bytes")),
                _count(item.get("rows")),
            )
        )
    if not rows:
        return ""
    header = (
        "Measurement",
        "Median",
        "Repetitions",
        "Floor",
        "× floor",
        "Peak RSS",
        "Rows",
    )
    return Md(
        "## Measurements\n\nThe cold builds run `mlperf-ledger site` from empty "
        "data, Dagster and build folders to the published site; the no-op update is "
        "`mlperf-ledger update` when nothing changed upstream; the new release is the "
        "same update after one round appeared in the mirror.\n\n"
    ) + _table(header, rows)


def floors(results: Mapping[str, Any]) -> str:
    """Each figure against the floor measured in the same run."""
    by = {
        _mapping(m).get("name"): _mapping(m) for m in _list(results.get("measurements"))
    }
    rows = []
    for floor in _mapping(results.get("floors")).values():
        floor = _mapping(floor)
        parts = md_join(
            " + ",
            (
                Md("{} ({})").format(
                    _label(by.get(name, {"name": name})), _seconds(seconds)
                )
                for name, seconds in _mapping(floor.get("parts")).items()
            ),
        )
        rows.append(
            (
                str(floor.get("label", "")),
                parts or "—",
                _seconds(floor.get("seconds")),
            )
        )
    if not rows:
        return ""
    return Md(
        "## Floors\n\nWhat each measurement is divided by: the parts it adds up, "
        "each the median of its own repetitions in the same run.\n\n"
    ) + _table(("Floor", "Parts", "Total"), rows)


def cost_points(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The analytics scales with a positive row count and time, smallest first."""
    points = []
    for item in _list(results.get("analytics_scaling")):
        item = _mapping(item)
        rows, seconds = _number(item.get("rows")), _number(item.get("median_s"))
        if not rows or not seconds or rows <= 0 or seconds <= 0:
            continue
        rss = _number(item.get("peak_rss_bytes"))
        points.append(
            {
                "scale": Md("x{}").format(_count(item.get("scale"))),
                "rows": rows,
                "seconds": seconds,
                "floor_s": _number(item.get("floor_s")),
                "ratio": _number(item.get("ratio")),
                "rss_mb": round(rss / 1e6, 1) if rss is not None else None,
                "pairs": _number(item.get("pairs")),
            }
        )
    return sorted(points, key=lambda p: p["rows"])


def x100_limit(results: Mapping[str, Any]) -> float | None:
    """The x100 time target the results were judged against, if they carry one."""
    for target in _list(results.get("targets")):
        target = _mapping(target)
        if target.get("id") == "analytics_x100_time":
            return _number(target.get("limit"))
    return None


def scaling(results: Mapping[str, Any], chart: str) -> str:
    """Analytics cost as the rows grow, with its chart."""
    points = cost_points(results)
    if not points:
        return ""
    rows = [
        (
            p["scale"],
            _count(p["rows"]),
            _seconds(p["seconds"]),
            _seconds(p["floor_s"]),
            _ratio(p["ratio"]),
            _bytes(p["rss_mb"] * 1e6 if p["rss_mb"] is not None else None),
            _count(p["pairs"]),
            Md("{:,.1f} µs").format(p["seconds"] / p["rows"] * 1e6),
        )
        for p in points
    ]
    return Md(
        "## Analytics cost against rows\n\nThe analytics assets (the enriched "
        "results, software gains, generation ratios and scaling with their blocking "
        "checks, and the exclusions), materialised in one Dagster run as the "
        "cross-release run does, on the canonical table of the cold "
        "build (x1) and on synthetic tables replicating every real row 10 and 100 "
        "times. Each copy renames its submitters, platforms, systems and keys and "
        "jitters values by ±1 %, so it behaves like one more set of teams running the "
        "same hardware: pairs within one submitter or platform grow with the copies, "
        "best-of pairs keep their count while their groups grow. The floor is "
        "reading the input table.\n{}\n"
    ).format(chart) + _table(
        (
            "Scale",
            "Rows",
            "Median",
            "Floor",
            "× floor",
            "Peak RSS",
            "Pairs found",
            "Time per row",
        ),
        rows,
    )


def raw_tree(results: Mapping[str, Any]) -> str:
    """What reading the raw trees costs."""
    tree = _mapping(results.get("raw_tree"))
    if not tree:
        return ""
    by = {
        _mapping(m).get("name"): _mapping(m) for m in _list(results.get("measurements"))
    }
    scan, floor = by.get("raw_tree_scan", {}), by.get("raw_tree_floor", {})
    ratio = _number(tree.get("overhead_ratio"))
    list_s = _mapping(scan.get("detail")).get("list_s")
    intro = Md(
        "## Raw-tree parsing\n\n"
        "`scan_raw_tree` on the {} raw submission tree in the mirror reads **{}** "
        "of the {} files listed (listing: {}) and turns them into "
        "{} result and rejected rows.\n\n"
    ).format(
        str(tree.get("release", "")),
        _count(tree.get("files_read")),
        _count(tree.get("files_listed")),
        _seconds(list_s),
        _count(scan.get("rows")),
    )
    table = _table(
        ("Work", "Median", "Files/s"),
        [
            (
                Md("Parsing (`scan_raw_tree`)"),
                _seconds(scan.get("median_s")),
                _count(tree.get("files_per_s")),
            ),
            (
                Md("Floor: read and decode the same files (`json.loads` / UTF-8)"),
                _seconds(floor.get("median_s")),
                _count(tree.get("floor_files_per_s")),
            ),
        ],
    )
    overhead = (
        Md("\nOur overhead over the floor: **×{:.1f}**.\n").format(ratio)
        if ratio is not None
        else Md("")
    )
    return intro + table + overhead


def page_weights(results: Mapping[str, Any]) -> str:
    """What a reader downloads per page."""
    weights = _mapping(results.get("page_weights"))
    if not weights:
        return ""
    rows = [
        (
            _code(_mapping(p).get("page", "")),
            _bytes(_mapping(p).get("html_bytes")),
            _bytes(_mapping(p).get("chart_bytes")),
            _bytes(_mapping(p).get("total_bytes")),
        )
        for p in _list(weights.get("heaviest"))
    ]
    return Md(
        "## Page weights\n\nWhat a reader downloads for one page of the site the "
        "cold build published: its HTML plus the chart specs and data files it "
        "loads (the shared JavaScript and CSS are cached after the first page). "
        "The site has {} pages, {} of HTML, and {} in {} files in all; the page "
        "budget is {}.\n\n"
    ).format(
        _count(weights.get("pages")),
        _bytes(weights.get("html_bytes")),
        _bytes(weights.get("site_bytes")),
        _count(weights.get("site_files")),
        _bytes(weights.get("budget_bytes")),
    ) + _table(("Heaviest pages", "HTML", "Chart JSON", "Total"), rows)


def _profile_table(profile: Mapping[str, Any]) -> Md:
    rows = [
        (_code(_mapping(s).get("step", "")), _seconds(_mapping(s).get("seconds")))
        for s in _list(profile.get("top_steps"))
    ]
    wall, steps = _number(profile.get("run_wall_s")), _number(profile.get("step_s"))
    timed = _number(profile.get("timed_s"))
    text = Md(
        "{} Dagster run(s) took {} from start to end, {} of it inside asset steps"
    ).format(_count(profile.get("runs")), _seconds(wall), _seconds(steps))
    if wall is not None and steps is not None:
        text += Md(" (Dagster's own share within runs: {})").format(
            _seconds(wall - steps)
        )
    if timed is not None and wall is not None:
        text += Md(
            ". Of the {} measured, {} passed "
            "outside any run: interpreter start and imports, loading the "
            "definitions, planning each run's job, sensor ticks and metadata queries"
        ).format(_seconds(timed), _seconds(timed - wall))
    return text + Md(".\n\n") + _table(("Step (summed over partitions)", "Time"), rows)


def profiles(results: Mapping[str, Any]) -> str:
    """Where the time of each profiled build goes."""
    parts = []
    for item in _list(results.get("measurements")):
        item = _mapping(item)
        profile = _mapping(_mapping(item.get("detail")).get("profile"))
        if profile.get("top_steps"):
            title = str(item.get("label", item.get("name", "")))
            parts.append(Md("### {}\n\n{}").format(title, _profile_table(profile)))
    if not parts:
        return ""
    return Md(
        "## Where the time goes\n\nStep durations from the Dagster event log of the "
        "last repetition.\n\n{}"
    ).format(md_join("\n", parts))


def machine(results: Mapping[str, Any]) -> str:
    """The machine the bench ran on."""
    machine = _mapping(results.get("machine"))
    if not machine:
        return ""
    cores = _count(machine.get("cores"))
    usable = machine.get("usable_cores")
    if _number(usable) is not None and usable != machine.get("cores"):
        cores += Md(" ({} usable)").format(_count(usable))
    rows = [
        ("CPU", str(machine.get("cpu_model", "unknown"))),
        ("Cores", cores),
        ("RAM", _bytes(machine.get("ram_bytes"))),
        ("OS", str(machine.get("os", "unknown"))),
        ("Python", str(machine.get("python", "unknown"))),
        ("Polars", str(machine.get("polars", "unknown"))),
        ("Dagster", str(machine.get("dagster", "unknown"))),
        ("Pipeline commit", _code(machine.get("pipeline_commit", ""))),
        ("Measured", str(machine.get("date", "unknown"))),
    ]
    return Md("## Machine\n\n") + _table(("Item", "Value"), rows)
