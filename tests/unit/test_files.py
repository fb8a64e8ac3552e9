"""The staged project is rewritten only where bytes change, never in place."""

from __future__ import annotations

import os
from pathlib import Path

from pipeline.files import prune, write_file
from pipeline.publish import stage_project


def test_identical_bytes_keep_the_file_and_new_bytes_get_a_new_inode(
    tmp_path: Path,
) -> None:
    page = write_file(tmp_path / "generated" / "releases" / "v6.1.md", "# v6.1\n")
    inode = page.stat().st_ino
    write_file(page, "# v6.1\n")
    assert page.stat().st_ino == inode
    # A published site links the staged file; a changed page must leave it be.
    published = tmp_path / "published.md"
    os.link(page, published)
    write_file(page, b"# v6.1, corrected\n")
    assert page.read_text() == "# v6.1, corrected\n"
    assert page.stat().st_ino != inode
    assert published.read_text() == "# v6.1\n"


def test_a_page_that_became_a_folder_and_back_is_written(tmp_path: Path) -> None:
    write_file(tmp_path / "releases" / "v6.1", "a page")
    nested = write_file(tmp_path / "releases" / "v6.1" / "resnet.md", "a folder")
    assert nested.read_text() == "a folder"
    page = write_file(tmp_path / "releases" / "v6.1", "a page again")
    assert page.is_file() and page.read_text() == "a page again"


def test_prune_removes_what_was_not_written_but_spares_assets(tmp_path: Path) -> None:
    kept = write_file(tmp_path / "releases" / "v6.1.md", "kept")
    write_file(tmp_path / "releases" / "v0.5.md", "stale")
    write_file(tmp_path / "gone" / "deep" / "page.md", "stale")
    write_file(tmp_path / "assets" / "js" / "vega-bundle.js", "cached")
    assert prune(tmp_path, [kept], spare=("assets",)) == 2
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "assets",
        "assets/js",
        "assets/js/vega-bundle.js",
        "releases",
        "releases/v6.1.md",
    ]


def test_stage_project_syncs_hand_written_pages_and_keeps_generated(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    write_file(root / "mkdocs.yml", "site_name: x\n")
    write_file(root / "site" / "index.md", "# Home\n")
    write_file(root / "site" / "old.md", "# Old\n")
    (root / "pipeline").mkdir()
    staging = stage_project(tmp_path / "staging", root)
    generated = write_file(staging / "site" / "generated" / "latest.md", "# Latest\n")
    (root / "site" / "old.md").unlink()
    write_file(root / "site" / "index.md", "# Home, edited\n")
    stage_project(staging, root)
    assert (staging / "site" / "index.md").read_text() == "# Home, edited\n"
    assert not (staging / "site" / "old.md").exists()
    assert generated.read_text() == "# Latest\n"
    assert (staging / "pipeline").resolve() == (root / "pipeline").resolve()
