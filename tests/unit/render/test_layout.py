"""The render package's rules, read from the source: pages are pure specs.

A page module (every entry of ``pages.PAGE_MODULES``, and the histories page) is a
set of page specs whose render functions read only what they are handed: it imports
no other page module, nor the engine, the render cache, the file writer or the
render entry point; it is at most 400 lines; no code outside the engine keys the
render cache by hand.
"""

from __future__ import annotations

import ast
from pathlib import Path

import polars as pl
import pytest

import pipeline.render as render_package
from pipeline.render import engine, pages
from pipeline.render.memo import digest
from pipeline.render.spec import Draft, PageSpec

RENDER = Path(render_package.__file__).parent
PAGE_MODULES = sorted({m.__name__.rsplit(".", 1)[1] for m in pages.PAGE_MODULES})
#: What a page never imports: the machinery that writes and caches it.
MACHINERY = {"engine", "memo", "files", "pages"}
MAX_LINES = 400


def _imports(path: Path) -> set[str]:
    """The ``pipeline.render`` modules (last name) and names ``path`` imports."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "pipeline.render":
                found |= {a.name for a in node.names}
            elif node.module.startswith("pipeline.render."):
                found.add(node.module.split(".")[2])
            elif node.module == "pipeline.files":
                found.add("files")
        elif isinstance(node, ast.Import):
            found |= {
                a.name.split(".")[2]
                for a in node.names
                if a.name.startswith("pipeline.render.")
            }
    return found


def test_every_page_kind_is_a_module_of_specs() -> None:
    assert len(PAGE_MODULES) == 18
    for module in pages.PAGE_MODULES:
        assert callable(getattr(module, "specs", None)), module.__name__
        assert not hasattr(module, "build"), module.__name__


@pytest.mark.parametrize("name", PAGE_MODULES)
def test_a_page_module_imports_no_page_module_and_no_machinery(name: str) -> None:
    imported = _imports(RENDER / f"{name}.py")
    assert imported & (set(PAGE_MODULES) - {name}) == set()
    assert imported & MACHINERY == set()


@pytest.mark.parametrize("name", PAGE_MODULES)
def test_a_page_module_is_at_most_400_lines(name: str) -> None:
    lines = (RENDER / f"{name}.py").read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES


def test_only_the_engine_keys_the_render_cache() -> None:
    callers = sorted(
        path.name
        for path in RENDER.rglob("*.py")
        if ".memo.run(" in path.read_text(encoding="utf-8")
        or ".reuse(" in path.read_text(encoding="utf-8")
    )
    assert callers == ["engine.py"]


def test_a_spec_must_hand_its_render_exactly_what_it_takes() -> None:
    def render(results: pl.DataFrame, release: str) -> object:
        return Draft().done()

    engine.check_spec(
        PageSpec("x", render, {"results": pl.DataFrame(), "release": "v"})
    )
    with pytest.raises(engine.SpecError) as raised:
        engine.check_spec(PageSpec("x", render, {"results": pl.DataFrame()}))
    assert str(raised.value) == (
        "page spec 'x': test_a_spec_must_hand_its_render_exactly_what_it_takes."
        "<locals>.render takes ['release', 'results'], the spec hands it ['results']"
    )


def test_a_cache_key_holds_every_row_of_a_frame_inside_any_value() -> None:
    frame = pl.DataFrame({"value": list(range(100))})
    changed = frame.with_columns(
        pl.when(pl.col("value") == 99).then(-1).otherwise(pl.col("value"))
    )
    # A frame's repr shows a few rows; the digest reads them all, also nested.
    assert digest({"rows": [frame]}) != digest({"rows": [changed]})
    with pytest.raises(TypeError, match="cannot digest a object"):
        digest([object()])
