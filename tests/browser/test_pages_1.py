"""The second of the two parts of the site's pages, each visited in Chromium and
checked as ``pages.PageChecks`` says; test_site.py checks the parts are every page."""

from __future__ import annotations

import pytest

from tests.browser.pages import PageChecks

pytestmark = pytest.mark.browser


class TestPages1(PageChecks):
    shard = 1
