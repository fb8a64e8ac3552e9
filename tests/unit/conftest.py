"""Unit-test settings: which modules ``make test-fast`` leaves out.

The modules below build a whole site (render_site, mkdocs), run the CLI in a
subprocess or hold real locks: seconds each. Everything else is a pure unit test on
hand-written records, and ``make test-fast`` runs those in well under 30 s.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SLOW_MODULES = {
    "test_accelerator_pages.py",
    "test_bench.py",
    "test_built_html.py",
    "test_cli.py",
    "test_coverage.py",
    "test_data_page.py",
    "test_downloads.py",
    "test_explorer.py",
    "test_extreme_numbers.py",
    "test_headlines.py",
    "test_history_page.py",
    "test_hostile_fetch.py",
    "test_pages.py",
    "test_releases_index.py",
    "test_runlock.py",
    "test_slugs.py",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
