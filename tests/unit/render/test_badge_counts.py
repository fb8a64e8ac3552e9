"""A release page's count of badged results is the count of badges it draws."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.render.pages import render_site
from pipeline.render.tables import (
    INFERRED_BADGE,
    MARKED_BADGE,
    PREVIEW_BADGE,
    badge_counts,
)
from tests.unit.render.conftest import frame, result
from tests.unit.render.rounds_data import site_data_of


def _one(n: int, **flags: object) -> dict:
    """One v5.1 result of its own benchmark, so the page shows every one of them."""
    fields = {
        "is_preview": False,
        "is_inferred": False,
        "is_inferred_unverified": False,
    }
    return result(
        result_key=f"5.1-{n:04}:bench{n}:Offline",
        benchmark=f"bench{n}",
        model_upstream=f"bench{n}",
        **(fields | flags),
    )


ROWS = (
    _one(1),
    _one(2, is_preview=True, availability="preview"),
    _one(3, is_inferred=True),
    # v6.1's case: marked inferred upstream, not known to be; badged as such.
    _one(4, is_inferred_unverified=True),
    _one(5, is_inferred_unverified=True),
    # Inferred and marked: one badge, "inferred", counted once, as inferred.
    _one(6, is_inferred=True, is_inferred_unverified=True),
)


def test_the_counts_use_the_badges_predicates() -> None:
    counts = frame(*ROWS).select(**badge_counts()).row(0, named=True)
    assert counts == {"preview": 1, "inferred": 2, "marked_inferred": 2}


@pytest.mark.slow
def test_the_latest_page_counts_the_badges_it_shows(tmp_path: Path) -> None:
    render_site(site_data_of(*ROWS), tmp_path / "generated", bundle=False)
    page = (tmp_path / "generated" / "latest.md").read_text()
    sentence = (
        "Of its 6 results, 1 preview, 2 inferred and 2 marked inferred upstream "
        "results carry a badge wherever they are shown."
    )
    assert sentence in page
    # A result can be shown twice (what's new, the top rows): count results.
    assert _badged(page, PREVIEW_BADGE) == {"5.1-0002"}
    assert _badged(page, INFERRED_BADGE) == {"5.1-0003", "5.1-0006"}
    assert _badged(page, MARKED_BADGE) == {"5.1-0004", "5.1-0005"}


def _badged(page: str, badge: str) -> set[str]:
    """The result ids whose linked value on ``page`` is followed by ``badge``."""
    linked = r'title="([^"&]*)&#46;([^"&]*)&#58;[^"]*">[^<]*</a> '
    return {
        f"{major}.{minor}"
        for major, minor in re.findall(linked + re.escape(badge), page)
    }
