"""The Systems page and the Explorer's description columns, in headless Chromium.

On the shared browser-test site (the mirror's summaries, v6.0's raw tree and one
hostile v6.1 record; tests/browser/conftest.py ``built_site``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.browser.conftest import MALICIOUS_SUBMITTER, MALICIOUS_SYSTEM, BuiltSite
from tests.browser.pages import open_explorer

pytestmark = pytest.mark.browser

GB300 = "nvidia-gb300-nvl72-gb300-288gb-aarch64x72-trt--e5ca0a56e8"


@pytest.fixture(scope="module")
def page(chromium_browser, built_site: BuiltSite) -> Iterator[object]:  # noqa: ANN001
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.errors = []
    tab.dialogs = []
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))
    tab.on(
        "console",
        lambda m: tab.errors.append(m.text) if m.type == "error" else None,
    )
    tab.on("dialog", lambda d: (tab.dialogs.append(d.message), d.dismiss()))
    yield tab
    context.close()


def _open(page, built_site: BuiltSite, system_id: str):  # noqa: ANN001, ANN202
    # A link to the description opened afresh, as from another page (a same-page
    # address change can be followed by the theme loading the page again).
    page.goto("about:blank")
    page.goto(f"{built_site.url}generated/systems.html#{system_id}")
    page.wait_for_function(
        f"(r => r.getAttribute('data-system') === '{system_id}' && !r.querySelector("
        "'.ledger-systems__view').textContent.startsWith('Loading'))"
        "(document.getElementById('ledger-systems'))"
    )
    return page.locator(".ledger-systems__view")


def test_gb300_nvl72_shows_its_rounds_changes_and_gain_chain(
    page,
    built_site: BuiltSite,  # noqa: ANN001
) -> None:
    view = _open(page, built_site, GB300)
    description = view.locator("table").first
    headers = description.locator("th").all_inner_texts()
    assert headers == ["Field", "v5.1", "v6.0", "v6.1"]
    framework = description.locator("tr", has_text="Framework").first
    cells = framework.locator("td").all_inner_texts()
    assert cells[0] == "Framework"
    assert cells[1] == "TensorRT 10.13, CUDA 13.0"
    assert cells[2].endswith("vLLM CentML:mlperf-inf-mm-q3vl-v6.0 (changed)")
    assert cells[3].endswith("vLLM CentML:mlperf-inf-mm-q3vl-v6.1 (changed)")
    chain = view.locator("table").nth(2)
    steps = [
        row.locator("td").all_inner_texts()[:7]
        for row in chain.locator("tbody tr").all()
    ]
    assert [
        "closed",
        "deepseek-r1",
        "Offline",
        "v5.1",
        "v6.0",
        "1.53824×",
        "yes",
    ] in steps
    assert [
        "closed",
        "deepseek-r1",
        "Offline",
        "v6.0",
        "v6.1",
        "1.05048×",
        "yes",
    ] in steps
    assert "The description is the submitter's declaration" in view.inner_text()
    assert page.errors == []


def test_a_hostile_system_is_shown_as_text(
    page,
    built_site: BuiltSite,  # noqa: ANN001
) -> None:
    page.goto(f"{built_site.url}generated/systems.html")
    row = page.locator("tr", has_text="evil-platform")
    system_id = row.get_attribute("id")
    assert MALICIOUS_SUBMITTER in row.inner_text()
    view = _open(page, built_site, system_id)
    assert MALICIOUS_SYSTEM in view.inner_text()
    assert view.locator("script, img").count() == 0
    assert page.dialogs == []
    # An id the page does not list is never fetched.
    page.goto(f"{built_site.url}generated/systems.html#..%2F..%2Findex")
    page.wait_for_timeout(300)
    assert page.locator(".ledger-systems__view").is_hidden()


def test_explorer_description_columns_are_off_until_asked_and_filter(
    page,
    built_site: BuiltSite,  # noqa: ANN001
) -> None:
    page.goto(f"{built_site.url}generated/explorer.html")
    open_explorer(page)
    header = page.locator(".tabulator-col[tabulator-field=accelerator_memory_gb]")
    assert header.is_hidden()
    page.click("[data-action=describe]")
    assert header.is_visible()
    for field in (
        "accelerator_interconnect", "interconnect_family", "cooling", "cooling_kind",
        "framework", "host_cpu_name",
    ):  # fmt: skip
        assert page.locator(f".tabulator-col[tabulator-field={field}]").is_visible()
    excluded = page.locator(".ledger-explorer__excluded")
    assert excluded.is_hidden()
    page.select_option("select[data-filter=accelerator_memory_size]", "288 GB")
    # The filters offer the normalised family; the declared text is the cell's title.
    page.select_option("select[data-filter=interconnect_family]", "NVLink 5")
    page.wait_for_function(
        "document.getElementById('ledger-explorer').getAttribute('data-matching')"
        " !== null"
    )
    link = page.locator(".tabulator-row a[href*='systems.html#']").first
    assert link.get_attribute("href").startswith(
        built_site.url + "generated/systems.html#"
    )
    matching = int(page.get_attribute("#ledger-explorer", "data-matching"))
    assert matching > 0
    memory = page.locator(
        ".tabulator-row .tabulator-cell[tabulator-field=accelerator_memory_gb]"
    ).all_inner_texts()
    assert set(memory) == {"288"}
    family = page.locator(
        ".tabulator-row .tabulator-cell[tabulator-field=interconnect_family]"
    ).first
    assert family.inner_text() == "NVLink 5"
    assert family.get_attribute("title").startswith("Declared: ")
    # v6.1's summary declares no description: the filter says it leaves it out.
    assert excluded.is_visible()
    assert "v6.1" in excluded.inner_text()
    assert "filtering by interconnect excludes" in excluded.inner_text()
    assert page.errors == []
