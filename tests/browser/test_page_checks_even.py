"""The site's even pages (part 0: every other page of the sorted list from the
first), each visited in Chromium and checked as ``pages.PageChecks`` says;
test_site.py checks the parts are every page."""

from __future__ import annotations

import pytest

from tests.browser.pages import PageChecks

pytestmark = pytest.mark.browser


class TestPageChecksEven(PageChecks):
    shard = 0
