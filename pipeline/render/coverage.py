"""Which rounds the ledger holds, how each was read, and which a comparison skips.

MLPerf Inference has had more rounds than the source this build read: a round the
manifest lists but no result row comes from is "not in source". Nothing here is
hard-coded: the rounds are the manifest's (``pipeline.manifest``) plus any release that
has rows, and a round's status follows from whether it has rows and what the manifest
says is ingested for it. Pages use this to state coverage (the Releases index) and to
name the rounds a cross-round pair or history step jumps over.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import polars as pl

from pipeline.manifest import release_for
from pipeline.registry.releases import ManifestError, Release, load_manifest
from pipeline.render.site_data import release_order

SUMMARY_FILE = "summary file"
#: Rounds before v4.1 publish no summary: their rows come from the submission tree.
RAW_TREE = "raw tree only"
NOT_IN_SOURCE = "not in source"
#: A round the build read a file of (a snapshot exists) that gave no result row.
NOT_INGESTED = "not ingested"
#: What the note says of a skipped round that is in the ledger, unless told otherwise.
IN_SOURCE = "in source"

#: One row per known round, oldest first (``round_status``).
STATUS_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "status": pl.String,
    "has_rows": pl.Boolean,
    "published_date": pl.Date,
}


def round_status(
    present: Iterable[str],
    manifest: Sequence[Release] | None = None,
    *,
    read: Iterable[str] = (),
) -> pl.DataFrame:
    """Every round of the manifest and every release with rows, with its status.

    Args:
        present: Releases that have at least one canonical result row.
        manifest: The rounds to list (the committed manifest by default).
        read: Releases the build holds a snapshot of, rows or not.

    Returns:
        ``STATUS_SCHEMA`` rows in version order. ``status`` is ``"summary file"`` or
        ``"raw tree only"`` (what the manifest ingests for a round with rows; a
        summary read together with its raw tree counts as the summary),
        ``"not ingested"`` (a snapshot but no row) or ``"not in source"`` (a listed
        round the build has nothing of).
    """
    releases = list(load_manifest() if manifest is None else manifest)
    known = {r.version: r for r in releases}
    with_rows = set(present)
    snapshotted = set(read)
    rows = []
    for version in release_order([*known, *with_rows]):
        meta = known.get(version) or _discovered(version)
        if version not in with_rows:
            status = NOT_INGESTED if version in snapshotted else NOT_IN_SOURCE
        elif meta is not None and "summary" not in meta.ingest:
            status = RAW_TREE
        else:
            status = SUMMARY_FILE
        rows.append(
            {
                "release": version,
                "status": status,
                "has_rows": version in with_rows,
                "published_date": meta.published_date if meta else None,
            }
        )
    return pl.DataFrame(rows, schema=STATUS_SCHEMA)


def _discovered(version: str) -> Release | None:
    try:
        return release_for(version, [])
    except ManifestError:  # not of the form vX.Y: listed, without manifest facts
        return None


def skipped_rounds(old: str, new: str, status: pl.DataFrame) -> list[str]:
    """Rounds strictly between ``old`` and ``new`` in ``round_status`` order."""
    order = status["release"].to_list()
    if old not in order or new not in order:
        return []
    low, high = sorted((order.index(old), order.index(new)))
    return order[low + 1 : high]


def skip_note(
    old: str, new: str, status: pl.DataFrame, *, in_source: str = IN_SOURCE
) -> str:
    """The rounds a comparison from old to new jumps over, as one phrase.

    Rounds absent from the source come first, then rounds read without a row; rounds
    the ledger holds follow with ``in_source`` as their reason: "skips v3.0, v3.1,
    v4.0: not in source" or "skips v5.0: not in source; v5.1: in source".
    Returns "" when the two rounds are adjacent. Plain text: callers escape it.
    """
    return _skip_note(old, new, _status_rows(status), in_source)


def _status_rows(status: pl.DataFrame) -> list[tuple[str, str, bool]]:
    """The status table as Python tuples: a note reads a dozen rows, many times."""
    return list(
        zip(
            status["release"].to_list(),
            status["status"].to_list(),
            status["has_rows"].to_list(),
            strict=True,
        )
    )


def _skip_note(
    old: str, new: str, rows: list[tuple[str, str, bool]], in_source: str
) -> str:
    """``skip_note`` over the status rows in table order (no frame per call)."""
    order = [release for release, _, _ in rows]
    if old not in order or new not in order:
        return ""
    low, high = sorted((order.index(old), order.index(new)))
    skipped = set(order[low + 1 : high])
    if not skipped:
        return ""
    chosen = [row for row in rows if row[0] in skipped]
    held = [release for release, _, has_rows in chosen if has_rows]
    parts = []
    for reason in (NOT_IN_SOURCE, NOT_INGESTED):
        absent = [r for r, kind, has_rows in chosen if not has_rows and kind == reason]
        if absent:
            parts.append(f"{', '.join(absent)}: {reason}")
    if held:
        parts.append(f"{', '.join(held)}: {in_source}")
    return "skips " + "; ".join(parts)


def skip_note_expr(
    old: pl.Expr, new: pl.Expr, status: pl.DataFrame, *, in_source: str = IN_SOURCE
) -> pl.Expr:
    """``skip_note`` for every row of a frame ("" where nothing is skipped).

    The note depends only on the two releases, so it is computed once per pair of
    known rounds and looked up; unknown releases get "".
    """
    rows = _status_rows(status)
    order = [release for release, _, _ in rows]
    notes = {
        f"{a}\x1f{b}": note
        for a in order
        for b in order
        if (note := _skip_note(a, b, rows, in_source))
    }
    key = pl.concat_str(old, pl.lit("\x1f"), new)
    return key.replace_strict(notes, default="", return_dtype=pl.String).fill_null("")


def held_between_expr(old: pl.Expr, new: pl.Expr, status: pl.DataFrame) -> pl.Expr:
    """The rounds with rows strictly between ``old`` and ``new``: "v5.1: in source".

    Null where there is none. Pair tables name the rounds missing from the source
    from the pair's own ``rounds_not_in_source`` (``pipeline.analysis``) and add
    these: the rounds a pair jumps over although the ledger holds them.
    """
    held = status.filter(pl.col("has_rows"))
    note = skip_note_expr(old, new, held)
    return pl.when(note != "").then(note.str.strip_prefix("skips "))
