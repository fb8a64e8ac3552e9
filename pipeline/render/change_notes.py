"""Corrections as other pages cite them: the Changes page's anchors, a release's note.

A release page (``release_views``) and the feed point at the Changes page
(``changes_page``), where every upstream correction of a round is listed.
"""

from __future__ import annotations

import polars as pl

from pipeline.render import safe
from pipeline.render.safe import Md
from pipeline.render.tables import relative

PAGE = "changes.md"
DOCS_PATH = f"generated/{PAGE}"


def anchor(release: str) -> str:
    """The heading id of one release's section."""
    return "changes-" + release.replace(".", "-")


def changes_note(corrections: pl.DataFrame, release: str, page: str) -> str:
    """A short section for a release page pointing at its corrections, or "".

    ``page`` is the docs-relative path of the release page the note goes on.
    """
    rows = corrections.filter(pl.col("release") == release)
    if rows.is_empty():
        return ""
    link = safe.path(f"{relative(page, DOCS_PATH)}#{anchor(release)}")
    return Md(
        "\n## Corrections\n\nUpstream changed {} result(s) of this release after "
        "publication ({} field change(s)); see [Changes]({}).\n"
    ).format(rows["result_key"].n_unique(), rows.height, link)
