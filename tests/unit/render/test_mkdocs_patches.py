"""The patches of MkDocs internals (render/mkdocs/patches.py): pinned, in one place."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from pipeline.render.mkdocs import patches

ROOT = Path(__file__).resolve().parents[3]
GLUE = ROOT / "pipeline" / "render" / "mkdocs"
#: The libraries whose internals only ``patches.py`` may touch.
PATCHED_LIBRARIES = ("mkdocs", "material", "markdown", "pymdownx")


def test_the_pins_are_pyprojects() -> None:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "dependencies"
    ]
    pinned = dict(
        re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)", line).groups()
        for line in dependencies
        if "==" in line
    )
    assert {name: pinned.get(name) for name in patches.PINNED} == patches.PINNED


def test_the_installed_versions_are_the_pinned_ones() -> None:
    patches.check_versions()


def test_another_version_is_refused_naming_package_installed_and_expected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    installed = {"mkdocs": "1.6.1", "mkdocs-material": "9.9.0", "markdown": "3.11.3"}
    monkeypatch.setattr(patches, "installed_version", installed.get)
    with pytest.raises(PluginError) as refused:
        patches.check_versions()
    assert str(refused.value) == (
        "mkdocs-material 9.9.0 is installed, but pipeline/render/mkdocs/patches.py "
        "patches mkdocs-material 9.8.2 (the version pyproject.toml pins): install "
        "the pinned versions (`make venv`), or review every patch against "
        "mkdocs-material 9.9.0 before changing the pin"
    )


def test_a_missing_library_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    installed = {"mkdocs": "1.6.1", "mkdocs-material": "9.8.2"}
    monkeypatch.setattr(patches, "installed_version", installed.get)
    with pytest.raises(PluginError, match=r"^markdown is not installed, but "):
        patches.check_versions()


def test_nothing_is_patched_for_another_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mkdocs import utils

    before = utils.copy_file
    monkeypatch.setattr(patches, "installed_version", lambda package: "0.1")
    with pytest.raises(PluginError, match=r"^mkdocs 0\.1 is installed"):
        patches.install(copy_file=lambda *args: None)
    assert utils.copy_file is before


def test_installing_again_replaces_the_patch_instead_of_wrapping_it() -> None:
    from mkdocs import utils

    own = patches.original("copy_file")
    try:
        patches.install(copy_file=lambda *args: "first")
        patches.install(copy_file=lambda *args: "second")
        assert utils.copy_file() == "second"
        assert patches.original("copy_file") is own
    finally:
        utils.copy_file = own


def _touches_internals(path: Path) -> list[str]:
    """Where a module imports a private name of, or assigns into, a patched library."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.split(".")[0] not in PATCHED_LIBRARIES:
                continue
            for alias in node.names:
                imported.add(alias.asname or alias.name)
                if alias.name.startswith("_"):
                    found.append(f"{path.name}:{node.lineno} imports {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PATCHED_LIBRARIES:
                    imported.add((alias.asname or alias.name).split(".")[0])
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        for target in targets:
            base = target
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(target, ast.Attribute) and (
                isinstance(base, ast.Name) and base.id in imported
            ):
                found.append(f"{path.name}:{node.lineno} assigns {ast.unparse(target)}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in imported
        ):
            found.append(f"{path.name}:{node.lineno} calls setattr")
    return found


def test_only_patches_py_touches_the_libraries_internals() -> None:
    pipeline = ROOT / "pipeline"
    sources = sorted(p for p in pipeline.rglob("*.py") if p != GLUE / "patches.py")
    assert [problem for path in sources for problem in _touches_internals(path)] == []


def test_the_internals_check_finds_a_patch(tmp_path: Path) -> None:
    module = tmp_path / "hook.py"
    module.write_text(
        "from mkdocs import utils\n"
        "from mkdocs.structure.pages import Page, _RelativePathTreeprocessor\n"
        "utils.copy_file = print\n"
        "Page.render = print\n"
        "setattr(Page, 'render', print)\n",
        encoding="utf-8",
    )
    assert _touches_internals(module) == [
        "hook.py:2 imports _RelativePathTreeprocessor",
        "hook.py:3 assigns utils.copy_file",
        "hook.py:4 assigns Page.render",
        "hook.py:5 calls setattr",
    ]
