"""The browser tests' HTTP server: the empty search index the page visits ask for.

Visits of every page answer Material's search index with an index of no pages (its
worker indexing the real one on each first visit was a quarter of their CPU time);
the server does it for a browser context holding ``EMPTY_INDEX_COOKIE``. Without the
cookie the real index is served, gzip'd as the build wrote it.
"""

from __future__ import annotations

import gzip
import json
import urllib.request
from pathlib import Path

from tests.browser.server import EMPTY_INDEX_COOKIE, serve

INDEX = {
    "config": {"lang": ["en"], "separator": "[\\s\\-]+"},
    "docs": [{"location": "", "title": "Home", "text": "x" * 5000}],
}


def _get(url: str, headers: dict[str, str]) -> tuple[dict[str, str], bytes]:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as r:
        return dict(r.headers), r.read()


def test_a_context_with_the_cookie_gets_an_index_of_no_pages(tmp_path: Path) -> None:
    folder = tmp_path / "search"
    folder.mkdir()
    text = json.dumps(INDEX).encode()
    (folder / "search_index.json").write_bytes(text)
    (folder / "search_index.json.gz").write_bytes(gzip.compress(text, mtime=0))
    with serve(tmp_path, "/sub/path/") as url:
        index = url + "search/search_index.json"
        headers, body = _get(index, {"Cookie": f"other=1; {EMPTY_INDEX_COOKIE}"})
        assert json.loads(body) == {"config": INDEX["config"], "docs": []}
        assert headers["Content-Type"] == "application/json"
        assert headers["Content-Length"] == str(len(body))
        headers, body = _get(index, {"Accept-Encoding": "gzip"})
        assert headers["Content-Encoding"] == "gzip"
        assert json.loads(gzip.decompress(body)) == INDEX
