"""Honest staleness: an asset's code version covers every module it runs."""

from __future__ import annotations

import inspect
from types import ModuleType

import pipeline.defs.raw_tree as raw_tree_defs
import pipeline.defs.website as website_defs
import pipeline.render.charts as charts
from pipeline.lineage import code_version, module_closure


def _edited(target: ModuleType):
    def read(module: ModuleType) -> str:
        source = inspect.getsource(module)
        return source + "\n# edited\n" if module is target else source

    return read


def test_editing_a_chart_module_makes_the_site_asset_stale():
    # The site asset's own module never mentions the chart code it runs through
    # the renderer; before, only pages.py was hashed.
    before = code_version(website_defs)
    assert code_version(website_defs, read=_edited(charts)) != before


def test_the_tree_reader_version_covers_the_registry_and_the_shared_canonicaliser():
    closure = module_closure(raw_tree_defs)
    assert {
        "pipeline.extract.raw_tree",
        "pipeline.transform.results",
        "pipeline.registry.rounds",
        "pipeline.fetch",
        "pipeline.source",
    } <= set(closure)


def test_a_module_outside_the_closure_does_not_change_the_version():
    import pipeline.analysis.scaling as scaling

    assert "pipeline.analysis.scaling" not in module_closure(raw_tree_defs)
    assert code_version(raw_tree_defs, read=_edited(scaling)) == code_version(
        raw_tree_defs
    )


def test_imports_are_found_in_every_form_a_module_writes_them():
    # Only import statements are parsed (a regular expression finds them); a form it
    # cannot cut out cleanly (a backslash continuation) falls back to the whole file.
    from pipeline.lineage import _imports_in

    source = '''
"""Docstring."""
import pipeline.render.charts
from pipeline.analysis import (
    gains,
    scaling,  # a comment
)


def later():
    from pipeline.labels import display_name
    return display_name


from pipeline.render import \\
    tables
'''
    assert _imports_in(source, "pipeline.render") == {
        "pipeline.render.charts",
        "pipeline.analysis",
        "pipeline.analysis.gains",
        "pipeline.analysis.scaling",
        "pipeline.labels",
        "pipeline.labels.display_name",
        "pipeline.render",
        "pipeline.render.tables",
    }
    relative = "from .charts import spec\nfrom . import tables\n"
    assert _imports_in(relative, "pipeline.render") == {
        "pipeline.render.charts",
        "pipeline.render.charts.spec",
        "pipeline.render",
        "pipeline.render.tables",
    }


def test_every_mkdocs_hook_is_in_the_published_sites_code_version():
    # The hooks shape the HTML: a hook mkdocs.yml loads but MKDOCS_HOOKS misses
    # would leave the published site fresh after the hook changed.
    lines = (website_defs.settings.PROJECT_ROOT / "mkdocs.yml").read_text().split("\n")
    start = lines.index("hooks:") + 1
    listed = []
    for line in lines[start:]:
        if not line.startswith("  - "):
            break
        listed.append(line.removeprefix("  - ").strip())
    assert listed == [
        f"pipeline/render/mkdocs/{name}.py" for name in website_defs.MKDOCS_HOOKS
    ]
