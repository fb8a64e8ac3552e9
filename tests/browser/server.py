"""A loopback HTTP server for a built site, as nginx serves it in production.

Kept apart from conftest.py so that the root conftest (the pytest-xdist controller,
which serves the site the workers share) can import it without this package's
fixtures.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class QuietHandler(SimpleHTTPRequestHandler):
    """Serves ``<file>.gz`` as ``<file>`` with Content-Encoding: gzip when the client
    accepts it, as nginx's ``gzip_static on;`` does with the build's precompressed
    files (``mkdocs_hooks.precompress``)."""

    def log_message(self, *args: object) -> None:
        pass

    def send_head(self):  # noqa: ANN201 (http.server's own signature)
        path = Path(self.translate_path(self.path))
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


class QuietServer(ThreadingHTTPServer):
    """Says nothing when the browser drops a connection mid-response (it navigates
    on while the search index still loads): pytest-xdist's controller, which serves
    the shared site, has no captured output to hide it in."""

    daemon_threads = True

    def handle_error(self, request, client_address) -> None:  # noqa: ANN001
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    """``folder`` over HTTP on 127.0.0.1 (a free port), as its base URL.

    The folder need not exist yet: the site's own URL is known before it is built.
    """
    server = QuietServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
