import json
from pathlib import Path
from types import SimpleNamespace

from pipeline.render import mkdocs_hooks


def test_generated_sections_expand_into_their_pages(tmp_path: Path) -> None:
    nav_file = tmp_path / mkdocs_hooks.NAV_FILE
    nav_file.parent.mkdir(parents=True)
    nav_file.write_text(
        json.dumps(
            {"generated/releases/index.md": [{"v6.1": "generated/releases/v6.1.md"}]}
        )
    )
    config = {
        "docs_dir": str(tmp_path),
        "nav": [{"Home": "index.md"}, {"Releases": "generated/releases/index.md"}],
    }
    assert mkdocs_hooks.on_config(config)["nav"] == [
        {"Home": "index.md"},
        {
            "Releases": [
                "generated/releases/index.md",
                {"v6.1": "generated/releases/v6.1.md"},
            ]
        },
    ]


def test_missing_nav_file_leaves_the_nav_alone(tmp_path: Path) -> None:
    config = {"docs_dir": str(tmp_path), "nav": [{"Home": "index.md"}]}
    assert mkdocs_hooks.on_config(config)["nav"] == [{"Home": "index.md"}]


def test_front_matter_text_reaches_html_as_inert_text() -> None:
    page = SimpleNamespace(
        meta={
            "title": "</title><script>alert(document.domain)</script>A &amp; B",
            "description": '"><img src=x onerror=alert(1)>',
            "author": "Évil <b>Corp</b>",
            "template": "main.html",
        }
    )
    assert mkdocs_hooks.on_page_markdown("# x\n", page=page, config={}) == "# x\n"
    assert page.meta == {
        "title": "alert(document.domain)A &amp; B",
        "description": "&#34;&gt;",
        "author": "Évil Corp",
        "template": "main.html",
    }
    # Applying it again changes nothing: escaped text stays escaped once.
    assert mkdocs_hooks.inert(page.meta["title"]) == page.meta["title"]
