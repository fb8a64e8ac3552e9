"""Readers' speed on a phone: Lighthouse's mobile profile on the built site.

``make lighthouse`` serves ``build/site`` as a static host serves it (each file's
``.gz`` sibling, ``tests/browser/server.py``) on 127.0.0.1 and runs Lighthouse 12
(npm ``lighthouse``, the pinned ``VERSION``, installed once under ``build/vendor/``)
with its default mobile profile against one page of each kind, ``RUNS`` times each.
It prints the median performance and accessibility scores and total blocking time
per page, against the targets of the site's readers (performance >= 95, total
blocking time <= 200 ms, accessibility 100), and writes them to
``build/bench/lighthouse.json``. Chromium is Debian's (``CHROME_PATH``).

Scores depend on the machine: Lighthouse simulates a mid-range phone on top of the
CPU it runs on, so compare runs of one machine, with nothing else running.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from tests.browser.server import serve

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "build" / "site"
VENDOR = ROOT / "build" / "vendor" / "lighthouse"
OUT = ROOT / "build" / "bench" / "lighthouse.json"
#: Lighthouse 13 wants Node 22; 12.2.3 runs on the Node the machines have.
VERSION = "12.2.3"
RUNS = 3
#: One page of each kind a reader lands on.
PAGES = {
    "home": "index.html",
    "latest": "generated/latest.html",
    "explorer": "generated/explorer.html",
    "benchmark": "generated/benchmarks/deepseek-r1.html",
    "pairs": "generated/generations/deepseek-r1.html",
    "systems": "generated/systems.html",
    "system": "generated/systems/nvidia-nvidia-gb300.html",
}
TARGETS = {"performance": 95, "total_blocking_time_ms": 200, "accessibility": 100}


def cli() -> Path:
    """Lighthouse's command line, installed from the npm registry on first use."""
    entry = VENDOR / "node_modules" / "lighthouse" / "cli" / "index.js"
    if not entry.is_file():
        VENDOR.mkdir(parents=True, exist_ok=True)
        print(f"installing lighthouse@{VERSION} into {VENDOR}", flush=True)
        subprocess.run(
            ["npm", "install", "--silent", "--no-audit", "--no-fund",
             "--prefix", str(VENDOR), f"lighthouse@{VERSION}"],
            check=True,
        )  # fmt: skip
    return entry


def chrome() -> str:
    """Debian's Chromium, or what ``CHROME_PATH`` names."""
    found = os.environ.get("CHROME_PATH") or shutil.which("chromium")
    if not found:
        sys.exit(
            "lighthouse: no Chromium (install Debian's chromium, or set CHROME_PATH)"
        )
    return found


def run_once(entry: Path, url: str, browser: str) -> dict[str, float]:
    """One Lighthouse run of ``url``: its scores and total blocking time."""
    done = subprocess.run(
        ["node", str(entry), url, "--quiet", "--output=json", "--output-path=stdout",
         "--only-categories=performance,accessibility",
         "--chrome-flags=--headless=new --no-sandbox --disable-dev-shm-usage"],
        capture_output=True, text=True, check=False, timeout=300,
        env={**os.environ, "CHROME_PATH": browser},
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"lighthouse failed on {url}: {done.stderr.strip()[-400:]}")
    report = json.loads(done.stdout)
    categories, audits = report["categories"], report["audits"]
    return {
        "performance": round(categories["performance"]["score"] * 100),
        "accessibility": round(categories["accessibility"]["score"] * 100),
        "total_blocking_time_ms": round(audits["total-blocking-time"]["numericValue"]),
        "largest_contentful_paint_ms": round(
            audits["largest-contentful-paint"]["numericValue"]
        ),
    }


def medians(runs: list[dict[str, float]]) -> dict[str, float]:
    """The median of each figure over the runs of one page."""
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]}


def verdict(figures: dict[str, float]) -> str:
    """PASS when every target holds, else the figures that miss."""
    misses = []
    if figures["performance"] < TARGETS["performance"]:
        misses.append(f"performance {figures['performance']:.0f} < 95")
    if figures["total_blocking_time_ms"] > TARGETS["total_blocking_time_ms"]:
        misses.append(f"TBT {figures['total_blocking_time_ms']:.0f} ms > 200")
    if figures["accessibility"] < TARGETS["accessibility"]:
        misses.append(f"accessibility {figures['accessibility']:.0f} < 100")
    return "PASS" if not misses else "FAIL (" + "; ".join(misses) + ")"


def main(argv: list[str] | None = None) -> int:
    """Measure every page of ``PAGES`` and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--page", action="append", choices=sorted(PAGES))
    parser.add_argument("--site", type=Path, default=SITE, help="a built site folder")
    args = parser.parse_args(argv)
    site = args.site.resolve()
    if not (site / "index.html").is_file():
        sys.exit(f"lighthouse: no built site at {site} (make site first)")
    entry, browser = cli(), chrome()
    chosen = args.page or list(PAGES)
    results: dict[str, dict] = {}
    with serve(site) as url:
        for name in chosen:
            runs = []
            for i in range(args.runs):
                print(f"[lighthouse] {name} run {i + 1}/{args.runs}", flush=True)
                runs.append(run_once(entry, url + PAGES[name], browser))
            results[name] = {"page": PAGES[name], "runs": runs, "median": medians(runs)}
    print()
    for name, result in results.items():
        m = result["median"]
        print(
            f"  {name:<10} performance {m['performance']:>3.0f}  "
            f"TBT {m['total_blocking_time_ms']:>5.0f} ms  "
            f"LCP {m['largest_contentful_paint_ms']:>6.0f} ms  "
            f"accessibility {m['accessibility']:>3.0f}  {verdict(m)}"
        )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"lighthouse": VERSION, "pages": results}, indent=1))
    print(f"\nwritten to {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
