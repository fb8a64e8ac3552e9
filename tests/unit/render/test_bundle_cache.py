"""SVG fallbacks come from the machine cache once rendered (issue 14, item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.render import bundle

SPEC = {
    "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
    "data": {"values": [{"x": 1, "y": 2}]},
    "mark": "point",
    "encoding": {"x": {"field": "x", "type": "quantitative"}},
}


def test_an_svg_is_rendered_once_per_spec_and_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rendered: list[dict] = []

    def render(spec: dict) -> str:
        rendered.append(spec)
        return f"<svg>{len(rendered)}</svg>"

    monkeypatch.setattr(bundle.vl_convert, "vegalite_to_svg", render)
    assert bundle.cached_svg(SPEC, tmp_path) == "<svg>1</svg>"
    # Same spec, another build: read back, not rendered.
    assert bundle.cached_svg(dict(SPEC), tmp_path) == "<svg>1</svg>"
    assert len(rendered) == 1
    # Another spec is another file.
    other = {**SPEC, "mark": "bar"}
    assert bundle.cached_svg(other, tmp_path) == "<svg>2</svg>"
    # A new vl-convert renders again (its output may differ).
    versions = bundle._versions()
    monkeypatch.setattr(
        bundle, "_versions", lambda: versions | {"vl-convert-python": "9.9.9"}
    )
    assert bundle.cached_svg(SPEC, tmp_path) == "<svg>3</svg>"
    assert len(list((tmp_path / "svg").glob("*.svg"))) == 3


def test_without_a_cache_every_call_renders(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    monkeypatch.setattr(
        bundle.vl_convert, "vegalite_to_svg", lambda spec: calls.append(1) or "<svg/>"
    )
    bundle.cached_svg(SPEC, None)
    bundle.cached_svg(SPEC, None)
    assert calls == [1, 1]


def test_the_real_renderer_output_is_what_the_cache_returns(tmp_path: Path) -> None:
    first = bundle.cached_svg(SPEC, tmp_path)
    assert first.startswith("<svg") and "</svg>" in first
    assert bundle.cached_svg(SPEC, tmp_path) == first
