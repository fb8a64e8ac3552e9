"""The MkDocs page cache (pipeline/render/mkdocs/cache.py) on a small Material site.

Real ``mkdocs build --strict`` runs, as production makes them (``publish.mkdocs_build``):
what is reused, what is built again, and that the bytes are a cold build's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.publish import mkdocs_build
from pipeline.render.mkdocs import cache as mkdocs_cache
from pipeline.render.mkdocs import hooks as mkdocs_hooks

SITE_URL = "http://127.0.0.1:8000/"


def _project(root: Path, section_b: list[str]) -> Path:
    """Two nav sections: A (two pages, one links into B) and B (``section_b``).

    B's pages join the nav as production's generated sections do: from nav.json,
    expanded by ``mkdocs_hooks``, so mkdocs.yml stays the same bytes.
    """
    docs = root / "docs"
    for folder in (docs / mkdocs_hooks.NAV_FILE).parent, docs / "a", docs / "b":
        folder.mkdir(parents=True, exist_ok=True)
    (docs / "index.md").write_text("# Home\n")
    (docs / "a" / "one.md").write_text("# A one\n\nSee [B one](../b/one.md).\n")
    (docs / "a" / "two.md").write_text("# A two\n")
    (docs / "b" / "index.md").write_text("# B\n")
    for name in section_b:
        (docs / "b" / f"{name}.md").write_text(f"# B {name}\n")
    (docs / mkdocs_hooks.NAV_FILE).write_text(
        json.dumps({"b/index.md": [{f"B {n}": f"b/{n}.md"} for n in section_b]})
    )
    (root / "mkdocs.yml").write_text(
        "site_name: t\nstrict: true\nuse_directory_urls: false\n"
        "theme:\n  name: material\n  features:\n    - navigation.prune\n"
        "plugins:\n  - search\n"
        f"hooks:\n  - {mkdocs_hooks.__file__}\n  - {mkdocs_cache.__file__}\n"
        "nav:\n  - index.md\n  - A:\n      - a/one.md\n      - a/two.md\n"
        "  - B: b/index.md\n"
    )
    return root


def _build(project: Path, out: Path, cache: Path | None) -> dict:
    ok, problems = mkdocs_build(project, out, SITE_URL, cache=cache)
    assert ok, problems
    report = cache / mkdocs_cache.REPORT if cache else None
    return json.loads(report.read_text()) if report else {}


def _files(site: Path) -> dict[str, bytes]:
    return {
        p.relative_to(site).as_posix(): p.read_bytes()
        for p in sorted(site.rglob("*"))
        if p.is_file()
    }


def test_unchanged_pages_are_reused_and_a_grown_section_rebuilds_itself_only(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "cache"
    project = _project(tmp_path / "p", ["one", "two"])
    assert _build(project, tmp_path / "first", cache)["reused"] == 0
    assert _build(project, tmp_path / "second", cache) == {
        "pages": 6,
        "reused": 6,
        "conversions_reused": 6,
    }
    assert _files(tmp_path / "second") == _files(tmp_path / "first")
    # Section B grows: its pages show the new sibling, A's pages show B closed.
    _project(project, ["one", "two", "three"])
    grown = _build(project, tmp_path / "grown", cache)
    assert (grown["pages"], grown["reused"]) == (7, 3)  # home, A one, A two
    cold = tmp_path / "cold"
    _build(project, cold, None)
    assert _files(tmp_path / "grown") == _files(cold)


def test_a_reused_page_whose_link_target_went_still_fails_the_build(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "cache"
    project = _project(tmp_path / "p", ["one", "two"])
    _build(project, tmp_path / "first", cache)
    (project / "docs" / "b" / "one.md").unlink()
    _project(project, ["two"])
    ok, problems = mkdocs_build(project, tmp_path / "second", SITE_URL, cache=cache)
    assert not ok
    assert "Doc file 'a/one.md' contains a link '../b/one.md'" in problems


def test_verify_mode_names_a_page_whose_cached_html_differs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    project = _project(tmp_path / "p", ["one", "two"])
    _build(project, tmp_path / "first", cache)
    (cached,) = [
        p
        for p in (cache / "html").glob("*/*.html")
        if "<h1" in p.read_text() and "A two</h1>" in p.read_text()
    ]
    cached.write_text(cached.read_text().replace("A two</h1>", "A 2</h1>"))
    monkeypatch.setenv(mkdocs_cache.VERIFY_ENV, "1")
    ok, problems = mkdocs_build(project, tmp_path / "second", SITE_URL, cache=cache)
    assert not ok
    assert "page cache: html of a/two.md differs from its cached html" in problems
