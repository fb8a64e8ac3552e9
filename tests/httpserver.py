"""A local HTTP server on 127.0.0.1 serving a folder, with scriptable faults.

Tests use it to exercise the real HTTP path of the source (retries, 404, truncated
bodies, timeouts) without any network beyond loopback.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def _blob_id(content: bytes) -> str:
    """The git blob id of a file's bytes (what ``git hash-object`` prints)."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()  # noqa: S324


class FaultyServer:
    """Serves ``root``; ``faults[path]`` is a list of behaviours consumed per request.

    Behaviours: ``"500"`` (server error), ``"hang"`` (sleep past the client timeout),
    ``"truncate"`` (declare the full length, send half, close), ``"html"`` (an HTML
    error page with status 200), ``"redirect:<location>"`` (HTTP 302 to that
    location), ``"drip"`` (the file one byte every ``drip_s`` seconds, so no single
    read ever times out).
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.faults: dict[str, list[str]] = defaultdict(list)
        self.requests: list[tuple[str, str]] = []
        self.hang_s = 3.0
        self.drip_s = 2.0
        #: Answer 200 with an HTML page for every missing file, as some hosts do.
        self.html_for_missing = False
        #: Every request's ``Authorization`` header ("" when none was sent).
        self.authorizations: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep pytest output clean
                pass

            def _serve(self, head: bool) -> None:
                server.requests.append((self.command, self.path))
                server.authorizations.append(self.headers.get("Authorization", ""))
                queue = server.faults.get(self.path)
                fault = queue.pop(0) if queue else None
                if fault == "500":
                    self.send_response(500)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if fault == "hang":
                    time.sleep(server.hang_s)
                    return
                if fault and fault.startswith("redirect:"):
                    self.send_response(302)
                    self.send_header("Location", fault.removeprefix("redirect:"))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if fault == "html":
                    body = b"<!DOCTYPE html><html><body>Rate limited</body></html>"
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                if self.path.startswith("/repos/"):
                    self._tree(head)
                    return
                file = server.root / self.path.lstrip("/")
                if not file.is_file() and server.html_for_missing:
                    body = b"<!DOCTYPE html><html><body>Not here</body></html>"
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    if not head:
                        self.wfile.write(body)
                    return
                if not file.is_file():
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = file.read_bytes()
                stat = file.stat()
                etag = f'"{stat.st_mtime_ns}-{stat.st_size}"'
                if self.headers.get("If-None-Match") == etag:
                    self.send_response(304)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("ETag", etag)
                self.end_headers()
                if head:
                    return
                if fault == "drip":
                    self._drip(body)
                    return
                if fault == "truncate":
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body)

            def _drip(self, body: bytes) -> None:
                """A slow-loris body: each byte arrives well within a read timeout."""
                try:
                    for byte in body:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(server.drip_s)
                except OSError:  # the client gave up and closed the connection
                    pass
                self.close_connection = True

            def _tree(self, head: bool) -> None:
                """Emulate GitHub's git trees API over the served folder."""
                repo = self.path.split("/")[3]
                folder = server.root / repo
                if not folder.is_dir():
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                # Each entry with its git blob id, as GitHub's API gives it.
                tree = [
                    {
                        "path": f.relative_to(folder).as_posix(),
                        "type": "blob",
                        "sha": _blob_id(f.read_bytes()),
                    }
                    for f in sorted(folder.rglob("*"))
                    if f.is_file()
                ]
                body = json.dumps({"tree": tree, "truncated": False}).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not head:
                    self.wfile.write(body)

            def do_GET(self) -> None:
                self._serve(head=False)

            def do_HEAD(self) -> None:
                self._serve(head=True)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        # Checked for shutdown every 20 ms, not every 0.5 s (http.server's default):
        # each test that starts a server waited up to half a second to stop it.
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def gets(self, suffix: str) -> int:
        """How many GET requests asked for a path ending in ``suffix``."""
        return sum(1 for m, p in self.requests if m == "GET" and p.endswith(suffix))

    def __enter__(self) -> FaultyServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
