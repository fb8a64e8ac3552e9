"""The layers as README.md draws them, read from every import in ``pipeline/``.

Business logic lives in plain modules; ``pipeline/defs/`` only wires it into Dagster,
so nothing but the wiring and its entry point imports the wiring. Rendering is a
leaf: only the asset that runs it imports ``pipeline.render``, and only MkDocs loads
the MkDocs glue (``pipeline/render/mkdocs/``, by file path). A module's private
(underscore) names stay in that module. Function-level imports count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.unit.test_import_cycles import _modules, import_graph

#: The Dagster entry point, which loads every module of the wiring.
DEFINITIONS = "pipeline.definitions"
#: Modules outside pipeline/render that import it, and exactly what: the asset that
#: renders the pages and reads the committed bench results for the Performance page.
RENDER_IMPORTERS = {
    "pipeline.defs.website": {
        "pipeline.render",
        "pipeline.render.memo",
        "pipeline.render.pages",
        "pipeline.render.bench_results",
        "pipeline.render.site_data",
        "pipeline.render.slugs",
    },
}
#: Private names imported across modules on purpose: ``safe`` marks markup trusted
#: for ``tables`` (its typed cells) and no one else; tests/unit/render/test_safe.py
#: checks that every other module leaves ``_trusted`` alone.
PRIVATE_IMPORTS = {("pipeline.render.tables", "pipeline.render.safe", "_trusted")}


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(f"{package}.")


def defs_importers(graph: dict[str, set[str]]) -> list[str]:
    """Modules outside the wiring that import it."""
    return [
        f"{module} imports {target}"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if _inside(target, "pipeline.defs")
        and module != DEFINITIONS
        and not _inside(module, "pipeline.defs")
    ]


def render_importers(graph: dict[str, set[str]]) -> list[str]:
    """Modules outside ``pipeline.render`` importing it beyond ``RENDER_IMPORTERS``."""
    return [
        f"{module} imports {target}"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if _inside(target, "pipeline.render")
        and not _inside(module, "pipeline.render")
        and target not in RENDER_IMPORTERS.get(module, set())
    ]


def mkdocs_glue_importers(graph: dict[str, set[str]]) -> list[str]:
    """Modules outside the MkDocs glue importing it (MkDocs loads it by path)."""
    return [
        f"{module} imports {target}"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if _inside(target, "pipeline.render.mkdocs")
        and not _inside(module, "pipeline.render.mkdocs")
    ]


def private_imports(modules: dict[str, Path]) -> list[tuple[str, str, str]]:
    """(module, from module, name) for every underscore name imported from pipeline."""
    found = []
    for name, file in sorted(modules.items()):
        package = name if file.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, *([base] if base else [])])
            if not _inside(base, "pipeline"):
                continue
            found += [
                (name, base, alias.name)
                for alias in node.names
                if alias.name.startswith("_") and not alias.name.startswith("__")
            ]
    return found


def test_only_the_wiring_imports_the_wiring() -> None:
    assert defs_importers(import_graph()) == []


def test_only_the_site_asset_imports_render() -> None:
    assert render_importers(import_graph()) == []


def test_nothing_imports_the_mkdocs_glue() -> None:
    assert mkdocs_glue_importers(import_graph()) == []


def test_no_private_name_is_imported_across_modules() -> None:
    found = set(private_imports(_modules()))
    assert found - PRIVATE_IMPORTS == set()
    # Each exception is still needed: one that is gone comes off the list.
    assert found >= PRIVATE_IMPORTS


def test_the_layer_checks_bite() -> None:
    graph = {
        "pipeline.runner": {"pipeline.defs.automation"},
        "pipeline.definitions": {"pipeline.defs.website"},
        "pipeline.defs.website": {"pipeline.render.pages", "pipeline.render.charts"},
        "pipeline.publish": {"pipeline.render.files", "pipeline.render.mkdocs.hooks"},
        "pipeline.render.pages": {"pipeline.render.mkdocs.cache"},
    }
    assert defs_importers(graph) == ["pipeline.runner imports pipeline.defs.automation"]
    assert render_importers(graph) == [
        "pipeline.defs.website imports pipeline.render.charts",
        "pipeline.publish imports pipeline.render.files",
        "pipeline.publish imports pipeline.render.mkdocs.hooks",
    ]
    assert mkdocs_glue_importers(graph) == [
        "pipeline.publish imports pipeline.render.mkdocs.hooks",
        "pipeline.render.pages imports pipeline.render.mkdocs.cache",
    ]


def test_the_private_import_check_bites(tmp_path: Path) -> None:
    package = tmp_path / "pipeline" / "render"
    package.mkdir(parents=True)
    (package / "page.py").write_text(
        "from pipeline.render.safe import Md, _trusted\n"
        "from .tables import _cell\n"
        "from os import _exit\n"
        "def f():\n"
        "    from pipeline.lineage import _imports_in\n",
        encoding="utf-8",
    )
    modules = {"pipeline.render.page": package / "page.py"}
    assert private_imports(modules) == [
        ("pipeline.render.page", "pipeline.render.safe", "_trusted"),
        ("pipeline.render.page", "pipeline.render.tables", "_cell"),
        ("pipeline.render.page", "pipeline.lineage", "_imports_in"),
    ]
