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
import gzip
import importlib
import io
import json
import pkgutil
import re
import types
from pathlib import Path

import polars as pl
import pytest

import pipeline.render as render_package
from pipeline.analysis.pairing import EXCLUSIONS_SCHEMA
from pipeline.render import charts, flags_section, safe, tables
from pipeline.render.downloads import FORMULA_GUARD, FORMULA_START
from pipeline.render.escape import escape
from pipeline.render.pages import render_site
from pipeline.render.safe import Md
from pipeline.render.site_data import SiteData
from pipeline.transform.corrections import CORRECTIONS_SCHEMA
from pipeline.transform.crosscheck import REPORT_SCHEMA
from pipeline.transform.measured import MEASURED_SCHEMA
from pipeline.transform.results import REJECTED_SCHEMA
from pipeline.transform.submitter_check import CHECK_SCHEMA
from pipeline.transform.systems import DECLARED_SCHEMA

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
#: a page, a scenario a section, a kind a table, a verdict or reading a claim's row);
#: everything else is hostile.
STEERING = {
    "release", "division", "scenario", "kind", "identity_level", "result_unit",
    "change", "status", "category", "availability", "power_unit", "power_kind",
    "efficiency_unit", "source_file", "fetched_at", "seen_at", "built_at",
    "commit_date", "claim_id", "verdict", "reading",
}  # fmt: skip


def _steering(column: str, keep: frozenset[str] = frozenset()) -> bool:
    bare = column.removesuffix("_old").removesuffix("_new")
    return (
        bare in STEERING
        or bare in keep
        or bare.endswith("sha256")
        or bare.startswith("release")
    )


def hostile(
    frame: pl.DataFrame | None, keep: frozenset[str] = frozenset(), tag: str = ""
) -> pl.DataFrame | None:
    """``frame`` with every shown text turned hostile and every URL a script.

    ``keep``: columns left as they are (an accelerator name the registry must map,
    so a chip's pages exist); ``tag`` tells two hostile copies of a row apart.
    """
    if frame is None:
        return None
    changes = {}
    for column, dtype in frame.schema.items():
        if dtype == pl.List(pl.String) and not _steering(column, keep):
            changes[column] = pl.col(column).list.eval(
                pl.format("{}{} {}", pl.lit(FORMULA), pl.element(), pl.lit(PAYLOAD))
            )
            continue
        if dtype != pl.String or _steering(column, keep):
            continue
        if column.removesuffix("_old").removesuffix("_new").endswith("url"):
            changes[column] = pl.lit(EVIL_URL)
        else:
            changes[column] = pl.format(
                "{}{}{} {}",
                pl.lit(FORMULA),
                pl.lit(tag),
                pl.col(column).fill_null("x"),
                pl.lit(PAYLOAD),
            )
    return frame.with_columns(**changes)


def hostile_value(value: object, key: str = "") -> object:
    """A JSON-like value (the bench results) with every shown string hostile."""
    if isinstance(value, dict):
        return {k: hostile_value(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [hostile_value(v, key) for v in value]
    if isinstance(value, str) and key not in ("id", "name", "role", "unit"):
        return f"{FORMULA}{value} {PAYLOAD}"
    return value


def _one_row(schema: dict, **values: object) -> pl.DataFrame:
    row = {name: None for name in schema} | values
    return pl.DataFrame([row], schema=schema)


def _more_results() -> pl.DataFrame:
    """Rows the small fixture lacks: power, Server and Interactive, two rounds of MI300X."""
    from tests.unit.render.conftest import AMD_V51, AMD_V60, frame, result

    return frame(
        {**AMD_V51, "result_key": "5.1-0001:llama2-70b-99:Server",
         "scenario": "Server", "result_value": 24000.0,
         "result_per_accelerator": 3000.0, "power_value": 8000.0,
         "power_unit": "Watts"},
        {**AMD_V51, "result_key": "5.1-0001:llama2-70b-99:Interactive",
         "scenario": "Interactive", "result_value": 16000.0,
         "result_per_accelerator": 2000.0},
        {**AMD_V60, "result_key": "6.0-0004:llama2-70b-99:Server",
         "scenario": "Server", "result_value": 30000.0,
         "result_per_accelerator": 3750.0, "power_value": 8000.0,
         "power_unit": "Watts"},
        # A benchmark new in the latest round, for What's new.
        result(release="v6.0", result_key="6.0-0009:whisper:Offline",
               result_id="6.0-0009", benchmark="whisper",
               result_unit="Samples/s", result_value=1000.0,
               result_per_accelerator=125.0, result_url=AMD_V51.get("result_url")),
    )  # fmt: skip


def _claims(site_data: SiteData) -> tuple[tuple, pl.DataFrame]:
    """One hostile claim (every text field) and its evaluations, made hostile too."""
    from pipeline.claims import evaluate_claims
    from tests.unit.test_claims_page import make_claim

    claim = make_claim(
        claimant=PAYLOAD, quote=PAYLOAD, title=PAYLOAD, note=PAYLOAD,
        systems=[PAYLOAD], submitters=[PAYLOAD], accelerators=None,
    )  # fmt: skip
    evaluations = evaluate_claims(
        [claim],
        site_data.results,
        site_data.gains,
        site_data.generations,
        site_data.scaling,
    )
    return (claim,), hostile(evaluations)


def _rules() -> tuple:
    """The plausibility registry with every shown text hostile (ids kept)."""
    import dataclasses

    from pipeline.analysis.plausibility import load_plausibility_rules

    return tuple(
        dataclasses.replace(
            r, reason=PAYLOAD, evidence=PAYLOAD, why=PAYLOAD, role=r.role + PAYLOAD
        )
        for r in load_plausibility_rules()
    )


@pytest.fixture(scope="module")
def hostile_data(site_data: SiteData) -> SiteData:
    from pipeline.render.site_data import ROUNDS_SCHEMA
    from tests.unit.test_bench import results_dict

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
        # Matches the first hostile copy of the result (the same key made hostile).
        "measured": _one_row(
            MEASURED_SCHEMA, release="v5.1", result_key=key, summary_result_key=key,
            location="a/b", scenario="Server", ttft_p50_ms=1.0, ttft_p90_ms=2.0,
            ttft_p99_ms=3.0, ttft_es_ms=3.5, tpot_p50_ms=10.0, tpot_p90_ms=11.0,
            tpot_p99_ms=12.0, tpot_es_ms=12.5, early_stopping_percentile=99.0,
            tokens_per_second_per_user=100.0, accuracy=80.0,
            accuracy_file="accuracy/accuracy_results.json",
            source_file="performance/result_summary.json",
        ),
        "rounds": _one_row(
            ROUNDS_SCHEMA, release="v5.1", repository="mlcommons/x", commit="c" * 40,
            files_read=1, summary="s", raw_tree="t", disagreement="d",
        ),
    }  # fmt: skip
    results = pl.concat([site_data.results, _more_results()])
    frames = {
        name: hostile(getattr(site_data, name))
        for name in ("gains", "generations", "scaling", "snapshots")
    }
    # Every text hostile; a copy whose chips the registry still maps and whose
    # benchmarks are known (LLM limits: Interactivity), and one with mapped chips and
    # hostile benchmarks (the accelerator pages' and histories' line labels).
    frames["results"] = pl.concat(
        [
            hostile(results),
            hostile(
                results, keep=frozenset({"accelerator_name", "benchmark"}), tag="b"
            ),
            hostile(results, keep=frozenset({"accelerator_name"}), tag="c"),
        ]
    )
    frames |= {name: hostile(frame) for name, frame in extra.items()}
    # A declared description whose spelling is hostile (its field name kept, so the
    # Audit page's "not in the vocabulary" section lists it).
    frames["system_fields"] = hostile(
        _one_row(
            DECLARED_SCHEMA, release="v5.1", division="closed", submitter="AMD",
            platform="p", source_kind="system_json", field_order=0,
            source_file="closed/AMD/systems/p.json", field_upstream="cooling",
            field="cooling", is_known=True, value="Air", value_kind="text",
        ),
        keep=frozenset({"field"}),
    )  # fmt: skip
    claims, evaluations = _claims(site_data)
    return SiteData(
        **{
            **site_data.__dict__,
            **frames,
            "claims": claims,
            "claim_evaluations": evaluations,
            "bench": hostile_value(results_dict()),
            "pipeline_commit": PAYLOAD,
            "lineage_mermaid": site_data.lineage_mermaid + f"  a --> b[{PAYLOAD}]\n",
        }
    )


def raw_payloads(out: Path) -> list[str]:
    """Every place where a payload came out raw: ``file: what``."""
    found = []
    for path in sorted(out.rglob("*")):
        where = path.relative_to(out)
        if path.name.endswith(".json.gz"):  # the Explorer's data file
            value = json.loads(gzip.decompress(path.read_bytes()))
            found += [f"{where}: a link to {v!r}" for v in _links(value)]
            continue
        if not path.is_file() or path.suffix in (".gz", ".parquet", ".js", ".css"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".json":
            value = json.loads(text)
            found += [f"{where}: a link to {v!r}" for v in _links(value)]
            if path.name == "nav.json":  # MkDocs prints nav titles as they are
                found += [f"{where}: title {t!r}" for t in _titles(value)]
            continue
        if path.suffix == ".csv":
            found += [f"{where}: formula {c!r}" for c in _formulas(text)]
            continue
        if path.name == "feed.xml":  # the entry HTML, as a feed reader decodes it
            text = "\n".join(_feed_html(text))
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


def _titles(nav: dict) -> list[str]:
    """Nav titles holding a live payload."""
    return [
        title
        for children in nav.values()
        for child in children
        for title in child
        if RAW_MARKDOWN.search(title)
    ]


def _feed_html(text: str) -> list[str]:
    """The HTML of every entry's content, XML-decoded (as a feed reader sees it)."""
    import xml.etree.ElementTree as ET

    atom = "{http://www.w3.org/2005/Atom}"
    try:
        root = ET.fromstring(text.encode())
    except ET.ParseError as error:  # a removed XML escape breaks the document
        return [f"<x-evil> feed.xml is not XML: {error}"]
    # All the text, also of elements inside: content type="html" holds escaped HTML,
    # so an element there means the XML escape was missing.
    return ["".join(e.itertext()) for e in root.iter(atom + "content")]


def _formulas(text: str) -> list[str]:
    cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
    return [c for c in cells if re.match(FORMULA_START, c)]


def _build(data: SiteData, tmp_path: Path) -> Path:
    out = tmp_path / "generated"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(flags_section, "load_plausibility_rules", _rules)
        render_site(data, out, bundle=False)
    return out


def _payloads_of_build(data: SiteData, tmp_path: Path) -> list[str]:
    """``raw_payloads`` of a build with a mutation in place, charts without SVG.

    vl-convert cannot draw a chart whose link is a script (a removed chart URL
    check), and after that failure later conversions of the test process failed
    too: the static fallbacks are left out of these builds (the chart specs and
    data files, which carry the same rows, are still scanned).
    """
    write_chart = charts.write_chart
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            charts,
            "write_chart",
            lambda *args, svg=False, **kwargs: write_chart(*args, svg=False, **kwargs),
        )
        return raw_payloads(_build(data, tmp_path))


#: Pages each extension of the fixture is for: the payload must be on them, escaped.
REACHED_PAGES = (
    "changes.md", "claims.md", "power.md", "performance.md", "data.md", "audit.md",
    "interactivity/llama2-70b-99.md", "models/llama2-70b-99.md", "latest.md",
    "feed.xml",
)  # fmt: skip


@pytest.fixture(scope="module")
def hostile_site(
    hostile_data: SiteData, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    return _build(hostile_data, tmp_path_factory.mktemp("hostile"))


def test_no_payload_survives_raw_in_any_page_download_or_chart(
    hostile_data: SiteData, hostile_site: Path
) -> None:
    out = hostile_site
    # The fixture reached the pages: the payload is there, escaped.
    for page in REACHED_PAGES:
        text = (out / page).read_text()
        if page == "feed.xml":
            text = "\n".join(_feed_html(text))
        assert "&lt;x-evil" in text, page
    accelerator_pages = list((out / "accelerators").glob("*.md"))
    assert accelerator_pages
    assert any("&lt;x-evil" in p.read_text() for p in accelerator_pages)
    # A refused URL keeps its text: the Changes page still names the result.
    key = hostile_data.corrections["result_key"][0]
    assert escape(key) in (out / "changes.md").read_text()
    assert (
        FORMULA_GUARD + "=HYPERLINK" in (out / "downloads" / "results.csv").read_text()
    )
    assert raw_payloads(out) == []


# -- removing an escape is caught --------------------------------------------------


def _page_modules() -> list[str]:
    """Render modules that write upstream text through the safe layer."""
    layer = {"pipeline.render.safe", "pipeline.render.tables", "pipeline.render.escape"}
    names = []
    for info in pkgutil.walk_packages(render_package.__path__, "pipeline.render."):
        module = importlib.import_module(info.name)
        if info.name not in layer and (
            hasattr(module, "safe") or hasattr(module, "Md")
        ):
            names.append(info.name)
    return sorted(names)


#: Every module that builds page text from upstream data through the safe layer.
PAGE_MODULES = (
    "pipeline.render.accelerator_pages",
    "pipeline.render.audit_page",
    "pipeline.render.audit_sections",
    "pipeline.render.benchmark_pages",
    "pipeline.render.changes_page",
    "pipeline.render.charts.style",
    "pipeline.render.claim_cells",
    "pipeline.render.claim_notes",
    "pipeline.render.claims_page",
    "pipeline.render.context",
    "pipeline.render.data_page",
    "pipeline.render.explorer_data",
    "pipeline.render.feed",
    "pipeline.render.flags_section",
    "pipeline.render.history_views",
    "pipeline.render.home",
    "pipeline.render.interactivity_page",
    "pipeline.render.interactivity_views",
    "pipeline.render.measured_views",
    "pipeline.render.model_pages",
    "pipeline.render.model_views",
    "pipeline.render.pair_views",
    "pipeline.render.pairs_pages",
    "pipeline.render.performance_sections",
    "pipeline.render.power_page",
    "pipeline.render.release_views",
    "pipeline.render.system_pages",
    "pipeline.render.system_views",
    "pipeline.render.whats_new",
)  # fmt: skip


#: Modules that use the layer but write no upstream text of their own, and why: a
#: bypass of the layer there has nothing to leak.
NO_UPSTREAM_TEXT = {
    "pipeline.render.change_notes": "counts of changed results and an anchor",
    "pipeline.render.engine": "chart containers: file names are slugs of ours",
    "pipeline.render.latest_page": "the newest round's title; release_views lays out",
    "pipeline.render.performance_page": "bench figures; performance_sections lays out",
    "pipeline.render.release_pages": "rounds' titles and nav; release_views lays out",
}


def test_every_page_module_is_listed() -> None:
    assert sorted([*PAGE_MODULES, *NO_UPSTREAM_TEXT]) == _page_modules()


def _identity(value: object) -> object:
    if isinstance(value, pl.Expr):
        return value.fill_null("")
    return "" if value is None else str(value)


#: The escapes of the safe layer and of the two other contexts (Atom XML, CSV), by
#: module and name: each, replaced by the identity, must let a payload through.
LAYER_ESCAPES = (
    ("pipeline.render.safe", "escape"),  # Md, fmt, text, link labels, series
    ("pipeline.render.tables", "escape"),  # plain table columns, list cells
    ("pipeline.render.safe", "safe_url"),  # every link of a page
    ("pipeline.render.feed", "_text"),  # the feed's XML
    ("pipeline.render.downloads", "FORMULA_GUARD"),  # CSV cells
)


@pytest.mark.slow
@pytest.mark.parametrize(("module", "name"), LAYER_ESCAPES)
def test_removing_an_escape_of_the_layer_is_caught(
    module: str,
    name: str,
    hostile_data: SiteData,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target = importlib.import_module(module)
    if name == "safe_url":  # page links only: charts have their own (chart_url)
        original = target.safe_url

        def replacement(value: object, html: bool = True) -> object:
            return value if html else original(value, html=False)
    elif name == "FORMULA_GUARD":
        replacement = ""
    else:
        replacement = _identity
    monkeypatch.setattr(target, name, replacement)
    assert _payloads_of_build(hostile_data, tmp_path), (module, name)


# A module bypassing the layer: every interpolation it makes is raw. The payload
# must then appear raw in the output, or the fixture does not reach that module.


class _LeakyMd(Md):
    """``Md`` that escapes nothing: a template formatted like an f-string."""

    __slots__ = ()

    @classmethod
    def escape(cls, s: object, /) -> Md:  # type: ignore[override]
        if hasattr(s, "__html__"):
            return cls(s.__html__())
        return cls("" if s is None else str(s))


def _leak(value: object) -> object:
    """An interpolated value passed off as markup (what bypassing the layer does)."""
    if isinstance(value, pl.Expr):
        return safe._trusted(value.cast(pl.String).fill_null(""))
    if isinstance(value, str) and not hasattr(value, "__html__"):
        return _LeakyMd(value)
    return value


def _raw_columns(frame: pl.DataFrame) -> pl.DataFrame:
    """Every plain column of a table as a typed cell, unescaped."""
    return frame.with_columns(
        safe._trusted(pl.col(c).cast(pl.String)).cell(c)
        for c, dtype in frame.schema.items()
        if not isinstance(dtype, pl.Struct | pl.List)
    )


def _leaky_layer() -> types.SimpleNamespace:
    """The names a page module takes from the layer, none of them escaping."""

    def leaky(function):  # every argument that could be text, leaked
        def call(*args: object, **kwargs: object) -> object:
            return function(
                *map(_leak, args), **{k: _leak(v) for k, v in kwargs.items()}
            )

        return call

    def fmt(template, *args):
        return safe.fmt(template, *map(_leak, args))

    def when(condition, then, otherwise=None):
        return safe.when(condition, _leak(then), _leak(otherwise))

    def choose(branches, otherwise=None):
        return safe.choose([(c, _leak(v)) for c, v in branches], _leak(otherwise))

    def link(label, url, title=None, **kwargs):
        return safe.link(_leak(label), url, _leak(title), **kwargs)

    def series(name, items):
        return safe.series(name, [_leak(i) for i in items])

    def html_table(frame, *args, **kwargs):
        return tables.html_table(_raw_columns(frame), *args, **kwargs)

    def markdown_table(frame, *args, **kwargs):
        return tables.markdown_table(_raw_columns(frame), *args, **kwargs)

    layer = dict(vars(safe))
    layer |= {
        "Md": _LeakyMd,
        "md_join": lambda separator, parts: _LeakyMd(separator).join(parts),
        "fmt": fmt,
        "text": lambda value: _leak(value) if isinstance(value, pl.Expr) else value,
        "concat": leaky(safe.concat),
        "coalesce": leaky(safe.coalesce),
        "when": when,
        "choose": choose,
        "link": link,
        "series": series,
        "link_md": lambda label, url, **kw: safe.link_md(_leak(label), url, **kw),
        "page_link": lambda label, target: safe.page_link(_leak(label), target),
        "markdown_link": lambda label, url: safe.markdown_link(_leak(label), url),
        "external_link": lambda label, url, title=None: link(label, url, title),
        "disclosure": lambda value, chars=0: _leak(value),
        "chart_url": lambda url: url,
        "html_table": html_table,
        "markdown_table": markdown_table,
        "rows_table": lambda header, rows: tables.rows_table(
            header, [[_leak(c) for c in row] for row in rows]
        ),
    }
    return types.SimpleNamespace(**layer)


@pytest.mark.slow
@pytest.mark.parametrize("name", PAGE_MODULES)
def test_a_module_that_bypasses_the_layer_is_caught(
    name: str, hostile_data: SiteData, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = importlib.import_module(name)
    layer = _leaky_layer()
    for attribute, leaky in vars(layer).items():
        taken = vars(module).get(attribute)
        if attribute.startswith("_") or taken is None:
            continue
        # Only what the module took from the layer (site.page_link is another one).
        if taken is getattr(safe, attribute, None) or taken is getattr(
            tables, attribute, None
        ):
            monkeypatch.setattr(module, attribute, leaky)
    if hasattr(module, "safe"):
        monkeypatch.setattr(module, "safe", layer)
    if hasattr(module, "tables"):
        monkeypatch.setattr(
            module,
            "tables",
            types.SimpleNamespace(
                **{
                    **vars(tables),
                    **{
                        k: getattr(layer, k)
                        for k in ("html_table", "markdown_table", "external_link")
                    },
                }
            ),
        )
    assert _payloads_of_build(hostile_data, tmp_path), name
