"""What the browser tests share: Debian's Chromium, a loopback server, the built site.

Building the site (the Dagster pipeline end to end) is the slowest step of the suite,
so it happens once per run: every test that needs the whole site uses the
session-scoped ``built_site``. Under ``make test`` (pytest-xdist, ``--dist loadfile``:
each file runs whole on one worker) the first worker to need it builds it under a
lock and the other reuses it, served by the controller at one URL (tests/conftest.py
``pytest_configure_node``); without xdist the process builds and serves its own.
That lets the visits of the site's pages be split over several files
(test_page_checks_*.py), which the two workers run side by side.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.browser.server import SITE_PREFIX, serve
from tests.conftest import ROOT, SHARED_SITE

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


def _build(work: Path, mirror: Path, url: str) -> float:
    """Build the site into ``work/build/site`` for ``url``; the seconds it took."""
    from pipeline import runner

    build = work / "build"
    build.mkdir(parents=True)
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
    return time.monotonic() - started


def _shared_build(work: Path, mirror: Path, url: str) -> float:
    """The site another worker built into ``work``, or built now if none did yet.

    The first worker to get the lock builds and records how it went; the others
    wait on the lock, then read the record: a failed build fails them too, at once,
    instead of being run again.
    """
    work.mkdir(parents=True, exist_ok=True)
    record = work / "built.json"
    with (work / "build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.exists():
            try:
                seconds = _build(work, mirror, url)
            except BaseException as error:
                record.write_text(json.dumps({"error": repr(error)}))
                raise
            record.write_text(json.dumps({"seconds": seconds}))
    built = json.loads(record.read_text())
    if "error" in built:
        pytest.fail(f"building the site failed on another worker: {built['error']}")
    return built["seconds"]


@pytest.fixture(scope="session")
def built_site(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    mirror: Path,
) -> Iterator[BuiltSite]:
    """The site exactly as `make site` builds it: the Dagster pipeline end to end,
    from a copy of the real mirror with one hostile record added, served on 127.0.0.1
    under ``SITE_PREFIX`` (as GitHub Pages serves a project site), its site URL set
    to that address as the publishing workflow sets it.

    ``build_seconds`` is how long the pipeline took, in whichever process built it.
    """
    shared = getattr(request.config, "workerinput", {}).get(SHARED_SITE)
    if shared is not None:
        work = Path(shared["folder"])
        seconds = _shared_build(work, mirror, shared["url"])
        yield BuiltSite((work / "build" / "site").resolve(), shared["url"], seconds)
        return
    work = tmp_path_factory.mktemp("pipeline")
    with serve(work / "build" / "site", SITE_PREFIX) as url:
        seconds = _build(work, mirror, url)
        yield BuiltSite((work / "build" / "site").resolve(), url, seconds)
