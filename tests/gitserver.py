"""A real git server on 127.0.0.1: ``git http-backend`` behind a small HTTP server.

It speaks git's smart HTTP protocol (v2, partial clone allowed), the protocol GitHub
speaks, so the git source is tested against git itself and not against a stand-in.
Repositories are bare folders under ``root``; ``faults`` scripts failures per request
(``"500"``, ``"hang"``), and every request is counted with the bytes it sent, so tests
and the bench can say what a fetch cost.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import re
import shutil
import subprocess
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

GIT = shutil.which("git") or "git"
_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
    "GIT_AUTHOR_NAME": "mlperf-ledger tests",
    "GIT_AUTHOR_EMAIL": "tests@localhost",
    "GIT_COMMITTER_NAME": "mlperf-ledger tests",
    "GIT_COMMITTER_EMAIL": "tests@localhost",
}


def git(*args: str | Path, cwd: Path | None = None, env: dict | None = None) -> str:
    """Run git quietly for building test repositories; its output as text."""
    merged = {**os.environ, **_ENV, **(env or {})}
    done = subprocess.run(
        [GIT, *map(str, args)], cwd=cwd, env=merged, capture_output=True, check=True
    )
    return done.stdout.decode()


def commit_folder(
    repo: Path,
    folder: Path,
    message: str,
    date: str = "2026-01-01T00:00:00Z",
    extra: dict[str, bytes] | None = None,
) -> str:
    """Make the bare ``repo``'s main branch hold ``folder`` (plus ``extra`` files).

    Built with plumbing in a temporary index, so the folder (the read-only shared
    mirror) is read in place and never copied.
    """
    if not (repo / "HEAD").exists():
        repo.mkdir(parents=True, exist_ok=True)
        git("init", "--bare", "-q", "-b", "main", repo)
        git("-C", repo, "config", "http.receivepack", "false")
    index = repo / "tmp-index"
    env = {
        "GIT_DIR": str(repo),
        "GIT_WORK_TREE": str(folder),
        "GIT_INDEX_FILE": str(index),
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
    }
    git("add", "-A", "-f", ".", cwd=folder, env=env)
    for path, content in (extra or {}).items():
        blob = _hash_object(content, env)
        git("update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=env)
    tree = git("write-tree", env=env).strip()
    index.unlink()
    parents = []
    with contextlib.suppress(subprocess.CalledProcessError):
        parents = ["-p", git("rev-parse", "-q", "--verify", "main", env=env).strip()]
    sha = git("commit-tree", tree, *parents, "-m", message, env=env).strip()
    git("update-ref", "refs/heads/main", sha, env=env)
    return sha


def _hash_object(content: bytes, env: dict[str, str]) -> str:
    done = subprocess.run(
        [GIT, "hash-object", "-w", "--stdin"],
        input=content,
        env={**os.environ, **_ENV, **env},
        capture_output=True,
        check=True,
    )
    return done.stdout.decode().strip()


def mirror_repositories(
    root: Path, mirror: Path, extra: dict[str, bytes] | None = None
) -> dict[str, str]:
    """One bare repository per round of ``mirror`` under ``root/mlcommons``.

    Each holds the round's folder as one commit (plus ``extra`` files); returns the
    commit of each round, by version.
    """
    commits = {}
    for folder in sorted(mirror.glob("inference_results_v*")):
        version = folder.name.removeprefix("inference_results_")
        commits[version] = commit_folder(
            root / "mlcommons" / f"{folder.name}.git",
            folder,
            f"{version} as published",
            extra=extra,
        )
    return commits


@dataclass
class Request:
    method: str
    path: str
    status: int
    sent: int
    #: The protocol v2 command of an upload-pack POST ("ls-refs", "fetch"), else "".
    command: str = ""


class GitServer:
    """Serves the bare repositories below ``root`` over smart HTTP on 127.0.0.1."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        #: Fault queues by repository name (``inference_results_v6.1``): "500", "401"
        #: or "hang" (sleep ``hang_s``, then drop the connection), each optionally for one
        #: protocol v2 command only ("500@fetch"); a request pops the first fault
        #: that applies to it.
        self.faults: dict[str, list[str]] = defaultdict(list)
        #: Called as ``on_request(repo, command)`` before a request is served.
        self.on_request = None
        self.requests: list[Request] = []
        self.hang_s = 5.0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _handle(self) -> None:
                path, _, query = self.path.partition("?")
                repo = next(
                    (
                        p.removesuffix(".git")
                        for p in path.split("/")
                        if p.endswith(".git")
                    ),
                    "",
                )
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                plain = (
                    gzip.decompress(body)
                    if self.headers.get("Content-Encoding") == "gzip"
                    else body
                )
                found = re.search(rb"command=([a-z-]+)", plain[:200])
                command = found.group(1).decode() if found else ""
                if server.on_request is not None:
                    server.on_request(repo, command)
                fault = server._pop_fault(repo, command)
                if fault == "hang":
                    time.sleep(server.hang_s)
                    self.close_connection = True
                    return
                if fault == "500":
                    self._reply(500, b"", path, command=command)
                    return
                if fault == "401":  # GitHub's answer for a repository it hides
                    self._reply(
                        401,
                        b"",
                        path,
                        [("WWW-Authenticate", 'Basic realm="GitHub"')],
                        command,
                    )
                    return
                env = {
                    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                    "GIT_PROJECT_ROOT": str(server.root),
                    "GIT_HTTP_EXPORT_ALL": "1",
                    "GIT_CONFIG_NOSYSTEM": "1",
                    "HOME": "/nonexistent",
                    # What GitHub allows, for any repository served (also one not
                    # built here): partial clone, and fetching a commit by its id.
                    "GIT_CONFIG_COUNT": "2",
                    "GIT_CONFIG_KEY_0": "uploadpack.allowFilter",
                    "GIT_CONFIG_VALUE_0": "true",
                    "GIT_CONFIG_KEY_1": "uploadpack.allowReachableSHA1InWant",
                    "GIT_CONFIG_VALUE_1": "true",
                    "REQUEST_METHOD": self.command,
                    "PATH_INFO": path,
                    "QUERY_STRING": query,
                    "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                    "CONTENT_LENGTH": str(len(body)),
                    "REMOTE_ADDR": "127.0.0.1",
                    "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
                    "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
                }
                done = subprocess.run(
                    [GIT, "http-backend"], input=body, env=env, capture_output=True
                )
                head, _, payload = done.stdout.partition(b"\r\n\r\n")
                status, headers = 200, []
                for line in head.decode("latin-1").split("\r\n"):
                    name, _, value = line.partition(":")
                    if name.lower() == "status":
                        status = int(value.strip().split()[0])
                    elif name:
                        headers.append((name, value.strip()))
                self._reply(status, payload, path, headers, command)

            def _reply(
                self,
                status: int,
                payload: bytes,
                path: str,
                headers: list[tuple[str, str]] = (),
                command: str = "",
            ) -> None:
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                with server._lock:
                    server.requests.append(
                        Request(self.command, path, status, len(payload), command)
                    )

            do_GET = _handle
            do_POST = _handle

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        # A client that gave up on a hanging request leaves a broken pipe: expected.
        self.httpd.handle_error = lambda *args: None
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def _pop_fault(self, repo: str, command: str) -> str | None:
        with self._lock:
            queue = self.faults.get(repo, [])
            for index, fault in enumerate(queue):
                kind, _, only = fault.partition("@")
                if not only or only == command:
                    del queue[index]
                    return kind
        return None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def cost(self, repo: str = "") -> tuple[int, int]:
        """(requests, bytes sent) so far, for one repository or all of them."""
        with self._lock:
            hits = [r for r in self.requests if repo in r.path]
        return len(hits), sum(r.sent for r in hits)

    def packs(self) -> int:
        """How many pack downloads (protocol v2 ``fetch`` commands) were served."""
        with self._lock:
            return sum(1 for r in self.requests if r.command == "fetch")

    def __enter__(self) -> GitServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
