"""The render cache (pipeline.render.memo): what it copies, what it renders again."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.render.engine import Writer
from pipeline.render.memo import RenderMemo, StaleRender


def _site(out: Path) -> Writer:
    out.mkdir(parents=True, exist_ok=True)
    return Writer(out)


def reuse(site: Writer, kind: str, inputs: list[object], produce):  # noqa: ANN001, ANN201
    """What the engine does for a cached spec: the memo keyed by its inputs."""
    assert site.memo is not None
    return site.memo.run(site, kind, inputs, produce)


class Page:
    """A page producer that counts its renders and writes what ``rows`` say."""

    def __init__(self, site: Writer, name: str = "accelerators/b200.md") -> None:
        self.site, self.name, self.renders = site, name, 0

    def __call__(self, rows: pl.DataFrame, chart: str | None = None) -> str:
        self.renders += 1
        if chart is not None:  # what Writer.chart records
            self.site.chart_names.add(chart)
            assert self.site.chart_log is not None
            self.site.chart_log.append((chart, chart))
        text = "# B200\n" + "\n".join(f"- {v}" for v in rows["value"].to_list())
        return self.site.write_page(self.name, text)


ROWS = pl.DataFrame({"value": [1.5, 2.5]})


def test_an_unchanged_page_is_copied_and_a_changed_one_rendered(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _site(tmp_path / "one" / "generated")
    page = Page(first)
    memo = RenderMemo(cache)
    first.memo = memo
    assert reuse(first, "accelerator", ["b200", ROWS], lambda: page(ROWS)) == (
        "generated/accelerators/b200.md"
    )
    second = _site(tmp_path / "two" / "generated")
    second.memo = RenderMemo(cache)
    again = Page(second)
    path = reuse(second, "accelerator", ["b200", ROWS], lambda: again(ROWS))
    assert (path, again.renders, second.memo.reused) == (
        "generated/accelerators/b200.md",
        0,
        1,
    )
    copied = second.out_dir / "accelerators" / "b200.md"
    assert copied.read_text() == "# B200\n- 1.5\n- 2.5"
    assert second.written == [copied]
    # One value changes: the key changes, the page is rendered again.
    changed = ROWS.with_columns(pl.col("value") * 2)
    reuse(second, "accelerator", ["b200", changed], lambda: again(changed))
    assert again.renders == 1
    assert copied.read_text() == "# B200\n- 3.0\n- 5.0"


def test_a_replay_whose_chart_name_is_taken_renders_instead(tmp_path: Path) -> None:
    """A fresh render would name the chart differently: the copy would be wrong."""
    cache = tmp_path / "cache"
    first = _site(tmp_path / "one" / "generated")
    first.memo = RenderMemo(cache)
    reuse(first, "accelerator", ["b200", ROWS], lambda: Page(first)(ROWS, "b200-x"))
    second = _site(tmp_path / "two" / "generated")
    second.memo = RenderMemo(cache)
    second.chart_names.add("b200-x")  # an earlier page of this build took the name
    page = Page(second)
    reuse(second, "accelerator", ["b200", ROWS], lambda: page(ROWS))
    assert (page.renders, second.memo.reused) == (1, 0)


def test_verify_mode_names_a_page_whose_key_misses_an_input(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _site(tmp_path / "one" / "generated")
    first.memo = RenderMemo(cache)
    reuse(first, "accelerator", ["b200"], lambda: Page(first)(ROWS))
    second = _site(tmp_path / "two" / "generated")
    second.memo = RenderMemo(cache, verify=True)
    other = ROWS.with_columns(pl.col("value") + 1)  # read, but not in the key
    with pytest.raises(StaleRender) as raised:
        reuse(second, "accelerator", ["b200"], lambda: Page(second)(other))
    assert str(raised.value) == (
        "render cache: accelerator page differs from its cached copy "
        "(files ['accelerators/b200.md']); its key misses an input"
    )


def test_finish_keeps_only_what_this_render_used(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _site(tmp_path / "one" / "generated")
    first.memo = RenderMemo(cache)
    for name in ("b200", "h100"):
        reuse(first, "accelerator", [name, ROWS], lambda: Page(first)(ROWS))
    second = _site(tmp_path / "two" / "generated")
    second.memo = RenderMemo(cache)
    reuse(second, "accelerator", ["b200", ROWS], lambda: Page(second)(ROWS))
    second.memo.finish()
    assert len(list(cache.glob("*/*.json"))) == 1
