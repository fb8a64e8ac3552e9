"""One hostile fixture through every page, download and chart the site writes.

Every upstream text field of every frame the renderer reads (results, pairs,
corrections, exclusions, cross-checks, rejected records, rounds) carries HTML, script,
attribute-breaking, Markdown-link, ``javascript:`` and spreadsheet-formula payloads;
every URL is a ``javascript:`` URL. Nothing may come out raw: not in a page (Markdown
or HTML), not in a chart spec's link, not as an unguarded formula in a CSV cell
(header cells included). The second test removes the escaping of one render module
at a time and checks the first test's scan then finds the payload: a removed escape
is caught wherever it sits.
"""

from __future__ import annotations

import csv
import importlib
import io
import json
import pkgutil
import re
from pathlib import Path

import polars as pl
import pytest

import pipeline.render as render_package
from pipeline.analysis.pairing import EXCLUSIONS_SCHEMA
from pipeline.render.downloads import FORMULA_GUARD, FORMULA_START
from pipeline.render.escape import escape
from pipeline.render.pages import render_site
from pipeline.render.site_data import SiteData
from pipeline.transform.corrections import CORRECTIONS_SCHEMA
from pipeline.transform.crosscheck import REPORT_SCHEMA
from pipeline.transform.results import REJECTED_SCHEMA
from pipeline.transform.submitter_check import CHECK_SCHEMA

#: Markers no legitimate output contains: each must appear only escaped.
TAG, ATTRIBUTE, SCHEME = "<x-evil", "data-evil=", "javascript:"
PAYLOAD = f"{TAG}>1</x-evil>\"'><img {ATTRIBUTE}1 src=x>[e]({SCHEME}evil())"
#: What a payload looks like where it came out raw: a live tag, or a link or image
#: whose target is a script (percent-encoded inside a URL, the same text is inert).
RAW = re.compile(
    r"<x-evil|<img\b[^>]*data-evil|(?:href|src)\s*=\s*[\"']?\s*javascript:",
    re.IGNORECASE,
)
#: In Markdown, a link too: Python-Markdown would make ``[e](javascript:...)`` one.
RAW_MARKDOWN = re.compile(RAW.pattern + r"|\]\(\s*javascript:", re.IGNORECASE)
#: Starts a spreadsheet formula: a CSV cell beginning so must be guarded.
FORMULA = '=HYPERLINK("https://evil.example","x")'
EVIL_URL = f"{SCHEME}alert(document.domain)"

#: Columns that steer the build rather than being shown (a release names a round and
#: a page, a scenario a section, a kind a table); everything else is hostile.
STEERING = {
    "release", "division", "scenario", "kind", "identity_level", "result_unit",
    "change", "status", "category", "availability", "power_unit", "power_kind",
    "efficiency_unit", "source_file", "fetched_at", "seen_at", "built_at",
    "commit_date",
}  # fmt: skip


def _steering(column: str) -> bool:
    bare = column.removesuffix("_old").removesuffix("_new")
    return bare in STEERING or bare.endswith("sha256") or bare.startswith("release")


def hostile(frame: pl.DataFrame | None) -> pl.DataFrame | None:
    """``frame`` with every shown text turned hostile and every URL a script."""
    if frame is None:
        return None
    changes = {}
    for column, dtype in frame.schema.items():
        if dtype != pl.String or _steering(column):
            continue
        if column.removesuffix("_old").removesuffix("_new").endswith("url"):
            changes[column] = pl.lit(EVIL_URL)
        else:
            changes[column] = pl.format(
                "{}{} {}",
                pl.lit(FORMULA),
                pl.col(column).fill_null("x"),
                pl.lit(PAYLOAD),
            )
    return frame.with_columns(**changes)


def _one_row(schema: dict, **values: object) -> pl.DataFrame:
    row = {name: None for name in schema} | values
    return pl.DataFrame([row], schema=schema)


@pytest.fixture(scope="module")
def hostile_data(site_data: SiteData) -> SiteData:
    key = site_data.results["result_key"][0]
    extra = {
        "corrections": _one_row(
            CORRECTIONS_SCHEMA, release="v5.1", result_key=key, change="changed",
            field="Performance_Result", old_value="1", new_value="2",
            old_sha256="a" * 64, new_sha256="b" * 64, seen_at="2026-01-02T03:04:05Z",
            result_url="https://github.com/mlcommons/x",
        ),
        "exclusions": _one_row(
            EXCLUSIONS_SCHEMA, kind="software_gain", identity_level="system",
            is_per_accelerator=False, exclusion_reason="open division: reason",
            pairs=3, example_result_key_old=key, example_result_key_new=key,
        ),
        "crosscheck": _one_row(
            REPORT_SCHEMA, release="v5.1", division="closed", submitter="AMD",
            platform="p", benchmark="llama2-70b-99", model_upstream="m",
            scenario="Offline", status="disagree", summary_value=1.0, raw_value=2.0,
            relative_difference=1.0, summary_unit="Tokens/s", raw_unit="Tokens/s",
            summary_result_key=key, raw_result_key=key, summary_location="a/b",
            raw_location="a/b", summary_url="https://github.com/x",
            raw_url="https://github.com/x", raw_source_file="mlperf_log_summary.txt",
        ),
        "submitter_check": _one_row(
            CHECK_SCHEMA, release="v1.0", csv_file="closed/A/results/x.csv", csv_row=1,
            platform="p", model="resnet", scenario="Offline", metric="m",
            csv_value=1.0, log_value=2.0, result_key=key,
            result_url="https://github.com/x", status="disagree", note="n",
        ),
        "rejected": _one_row(
            REJECTED_SCHEMA, release="v5.1", source_file="summary_results.json",
            source_record="record 7", result_key=key, reason="bad value",
            record_json='{"System": "x"}', snapshot_sha256="ab" * 32,
        ),
    }  # fmt: skip
    frames = {
        name: hostile(getattr(site_data, name))
        for name in ("results", "gains", "generations", "scaling", "snapshots")
    }
    frames |= {name: hostile(frame) for name, frame in extra.items()}
    return SiteData(**{**site_data.__dict__, **frames})


def raw_payloads(out: Path) -> list[str]:
    """Every place where a payload came out raw: ``file: what``."""
    found = []
    for path in sorted(out.rglob("*")):
        if not path.is_file() or path.suffix in (".gz", ".parquet", ".js", ".css"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        where = path.relative_to(out)
        if path.suffix == ".json":
            found += [f"{where}: a link to {v!r}" for v in _links(json.loads(text))]
            continue
        if path.suffix == ".csv":
            found += [f"{where}: formula {c!r}" for c in _formulas(text)]
            continue
        found += [
            f"{where}: {text[max(0, m.start() - 60) : m.end() + 20]!r}"
            for m in (RAW_MARKDOWN if path.suffix == ".md" else RAW).finditer(text)
        ]
    return found


def _links(value: object) -> list[str]:
    """Link-like strings in a chart spec or data file that are not http(s)."""
    if isinstance(value, dict):
        return [x for v in value.values() for x in _links(v)]
    if isinstance(value, list):
        return [x for v in value for x in _links(v)]
    if isinstance(value, str) and value.strip().lower().startswith(SCHEME):
        return [value]
    return []


def _formulas(text: str) -> list[str]:
    cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
    return [c for c in cells if re.match(FORMULA_START, c)]


def _build(data: SiteData, tmp_path: Path) -> Path:
    out = tmp_path / "generated"
    render_site(data, out, bundle=False)
    return out


def test_no_payload_survives_raw_in_any_page_download_or_chart(
    hostile_data: SiteData, tmp_path: Path
) -> None:
    out = _build(hostile_data, tmp_path)
    # The fixture reached the pages: the payload is there, escaped.
    changes = (out / "changes.md").read_text()
    assert "&lt;x-evil&gt;" in changes
    # A refused URL keeps its text: the Changes page still names the result.
    key = hostile_data.corrections["result_key"][0]
    assert escape(key) in changes
    assert (
        FORMULA_GUARD + "=HYPERLINK" in (out / "downloads" / "results.csv").read_text()
    )
    assert raw_payloads(out) == []


def _escaping_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(render_package.__path__, "pipeline.render."):
        module = importlib.import_module(info.name)
        if info.name != "pipeline.render.escape" and hasattr(module, "escape"):
            names.append(info.name)
    return sorted(names)


#: Render modules whose escaping this fixture reaches: removing it puts a payload on
#: a page. The others escape text this small fixture does not feed them (claims,
#: power, interactivity limits, accelerator histories of two or more rounds, bench
#: results, the feed, the MkDocs hook's nav titles); extending the fixture to reach
#: them is the next step (they are listed so a new module is not silently skipped).
REACHED = (
    "pipeline.render.audit_page", "pipeline.render.benchmark_pages",
    "pipeline.render.changes_page", "pipeline.render.home",
    "pipeline.render.pairs_pages", "pipeline.render.release_pages",
    "pipeline.render.site", "pipeline.render.system_pages",
    "pipeline.render.tables",
)  # fmt: skip
NOT_REACHED_YET = (
    "pipeline.render.accelerator_pages", "pipeline.render.claims_page",
    "pipeline.render.data_page", "pipeline.render.feed",
    "pipeline.render.flags_section", "pipeline.render.history_page",
    "pipeline.render.interactivity_page", "pipeline.render.mkdocs_hooks",
    "pipeline.render.performance_page", "pipeline.render.power_page",
    "pipeline.render.whats_new",
)  # fmt: skip


def test_every_escaping_module_is_listed() -> None:
    assert sorted((*REACHED, *NOT_REACHED_YET)) == _escaping_modules()


@pytest.mark.slow
@pytest.mark.parametrize("name", REACHED)
def test_removing_one_modules_escaping_is_caught(
    name: str, hostile_data: SiteData, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def identity(value: object) -> object:
        if isinstance(value, pl.Expr):
            return value.fill_null("")
        return "" if value is None else str(value)

    monkeypatch.setattr(importlib.import_module(name), "escape", identity)
    assert raw_payloads(_build(hostile_data, tmp_path)), name
