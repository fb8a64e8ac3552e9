"""A loopback HTTP server for a built site, as nginx or GitHub Pages serve it.

The site can be served under a path (``serve(folder, prefix="/sub/path/")``), as
GitHub Pages serves a project site at ``https://<owner>.github.io/<repo>/``: nothing
is served outside it, so a root-absolute link or asset fails. A missing file under
the prefix gets the site's own ``404.html`` with status 404, as both hosts do.

Kept apart from conftest.py so that the root conftest (the pytest-xdist controller,
which serves the site the workers share) can import it without this package's
fixtures.
"""

from __future__ import annotations

import functools
import io
import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

#: Where the shared browser-test site is served: under a path, never at the root.
SITE_PREFIX = "/sub/path/"
#: A browser context holding this cookie is answered an empty search index
#: (``empty_index``), see ``tests.browser.pages.empty_search_index``.
EMPTY_INDEX_COOKIE = "ledger-test-search-index=empty"
SEARCH_INDEX_NAME = "search_index.json"


def empty_index(index: Path) -> bytes:
    """The search index ``index`` with its configuration and no pages."""
    return _empty_index(str(index), index.stat().st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _empty_index(index: str, _mtime_ns: int) -> bytes:
    # Read once per built index, not on each of the ~300 visits that ask for it.
    config = json.loads(Path(index).read_text(encoding="utf-8"))["config"]
    return json.dumps({"config": config, "docs": []}).encode()


class QuietHandler(SimpleHTTPRequestHandler):
    """Serves ``<file>.gz`` as ``<file>`` with Content-Encoding: gzip when the client
    accepts it, as nginx's ``gzip_static on;`` does with the build's precompressed
    files (``render/mkdocs/hooks.precompress``)."""

    #: The URL path the folder is served under ("/" or "/sub/path/").
    prefix = "/"

    def log_message(self, *args: object) -> None:
        pass

    def translate_path(self, path: str) -> str:
        """The file for ``path`` under the prefix; outside it, a file never there."""
        if not (path + "/").startswith(self.prefix):
            return str(Path(self.directory) / ".outside-the-served-path")
        return super().translate_path("/" + path[len(self.prefix) :])

    def send_error(
        self, code: int, message: str | None = None, explain: str | None = None
    ) -> None:
        """A missing page under the prefix gets the site's 404.html (status 404)."""
        page = Path(self.directory) / "404.html"
        inside = (self.path + "/").startswith(self.prefix)
        if code != 404 or not inside or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_head(self):  # noqa: ANN201 (http.server's own signature)
        path = Path(self.translate_path(self.path))
        if (
            path.name == SEARCH_INDEX_NAME
            and path.is_file()
            and (EMPTY_INDEX_COOKIE in self.headers.get("Cookie", ""))
        ):
            return self._send_bytes(empty_index(path), "application/json")
        packed = path.with_name(path.name + ".gz")
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.is_file() and packed.is_file()):
            return super().send_head()
        handle = packed.open("rb")
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(packed.stat().st_size))
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        return handle

    def _send_bytes(self, body: bytes, content_type: str) -> io.BytesIO:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


class QuietServer(ThreadingHTTPServer):
    """Says nothing when the browser drops a connection mid-response (it navigates
    on while the search index still loads): pytest-xdist's controller, which serves
    the shared site, has no captured output to hide it in."""

    daemon_threads = True

    def handle_error(self, request, client_address) -> None:  # noqa: ANN001
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def serve(folder: Path, prefix: str = "/") -> Iterator[str]:
    """``folder`` over HTTP on 127.0.0.1 (a free port) at ``prefix``, as its URL.

    The folder need not exist yet: the site's own URL is known before it is built.
    """
    handler = type("Handler", (QuietHandler,), {"prefix": prefix})
    server = QuietServer(("127.0.0.1", 0), partial(handler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{prefix}"
    finally:
        server.shutdown()
        server.server_close()
