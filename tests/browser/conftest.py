"""What the browser tests share: Debian's Chromium, a loopback server, the built site.

Building the site (the Dagster pipeline end to end) is the slowest step of the suite,
so it happens once per test process: every test that needs the whole site uses the
session-scoped ``built_site``. Under ``make test`` (pytest-xdist, ``--dist loadfile``)
each file runs whole on one worker, so tests of the built site live in test_site.py:
a second file could land on the other worker and build the site a second time.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.conftest import ROOT

#: Debian's Chromium: Playwright's own browser download is not reachable here.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = ROOT / "build" / "screenshots"

MALICIOUS_SYSTEM = (
    "<script>alert(1)</script> [click](javascript:alert(1)) *bold* | pipe"
)
MALICIOUS_SUBMITTER = "Evil_Corp <img src=x onerror=alert(2)>"


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


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    """``folder`` over HTTP on 127.0.0.1 (a free port), as its base URL.

    The folder need not exist yet: the site's own URL is known before it is built.
    """
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(QuietHandler, directory=str(folder))
    )
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def chromium_browser() -> Iterator[object]:
    """One headless Chromium per test process; tests open their own contexts."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        yield browser
        browser.close()


@dataclass(frozen=True)
class BuiltSite:
    root: Path
    url: str
    build_seconds: float


def _hostile_mirror(mirror: Path, root: Path) -> Path:
    """The mirror's summaries and v6.0 raw tree, plus one hostile v6.1 record."""
    for release, name in (
        ("v4.1", "summary_results.json"),
        ("v5.1", "summary_results.json"),
        ("v6.0", "summary_results.json"),
        ("v6.1", "summary.json"),
    ):
        folder = root / f"inference_results_{release}"
        folder.mkdir(parents=True)
        shutil.copy(mirror / folder.name / name, folder / name)
    for division in ("closed", "open"):
        shutil.copytree(
            mirror / "inference_results_v6.0" / division,
            root / "inference_results_v6.0" / division,
        )
    path = root / "inference_results_v6.1" / "summary.json"
    records = json.loads(path.read_text())
    records["9999"] = records["0"] | {
        "SystemName": MALICIOUS_SYSTEM,
        "Organization": MALICIOUS_SUBMITTER,
        "Platform": "evil-platform",
        "Location": "./closed/Evil_Corp/results/evil-platform/dlrm-v3/Offline/performance/run_1",
    }
    path.write_text(json.dumps(records))
    return root


@pytest.fixture(scope="session")
def built_site(
    tmp_path_factory: pytest.TempPathFactory, mirror: Path
) -> Iterator[BuiltSite]:
    """The site exactly as `make site` builds it: the Dagster pipeline end to end,
    from a copy of the real mirror with one hostile record added, served on 127.0.0.1.
    """
    from pipeline import runner

    work = tmp_path_factory.mktemp("pipeline")
    build = work / "build"
    build.mkdir(parents=True)
    with serve(build / "site") as url:
        started = time.monotonic()
        with pytest.MonkeyPatch.context() as env:
            env.setenv("MLPERF_SOURCE", str(_hostile_mirror(mirror, work / "mirror")))
            env.setenv("MLPERF_DATA_DIR", str(work / "data"))
            env.setenv("DAGSTER_HOME", str(work / "data" / "dagster_home"))
            env.setenv("MLPERF_BUILD_DIR", str(build))
            # Material's instant navigation needs the site's own URL in sitemap.xml.
            env.setenv("MLPERF_LEDGER_SITE_URL", url)
            instance = runner.get_instance()
            outcomes = runner.ingest(
                instance, ["v4.1", "v5.1", "v6.0", "v6.1"], progress=print, site=True
            )
        assert all(o.success for o in outcomes), [o.message for o in outcomes]
        yield BuiltSite(
            root=(build / "site").resolve(),
            url=url,
            build_seconds=time.monotonic() - started,
        )
