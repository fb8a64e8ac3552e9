"""The site's odd pages (part 1: every other page of the sorted list from the
second), each visited in Chromium and checked as ``pages.PageChecks`` says;
test_site.py checks the parts are every page."""

from __future__ import annotations

import pytest

from tests.browser.pages import PageChecks

pytestmark = pytest.mark.browser


class TestPageChecksOdd(PageChecks):
    shard = 1
