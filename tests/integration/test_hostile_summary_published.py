"""Issue 26 end to end: one hostile v6.1 summary, built and published through Dagster.

Every good record publishes; each bad one is rejected with its own reason; the page
of a benchmark named "index" does not displace the index; no link leaves the
round's repository; a typo release leaves nothing behind.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import polars as pl
import pytest

from pipeline import runner
from pipeline.render.escape import INVISIBLE_PATTERN

RECORDS = 492
INVISIBLE_NAME = "Hidden\u2066 System\U000e0041\u3164\u200b"


def _hostile(records: dict) -> str:
    """The real records as JSON text, with one hostile variant per case."""
    text = {k: json.dumps(v) for k, v in records.items()}
    text["1"] = text["1"][:-1] + ', "Result": 1.0}'  # a field named twice
    text["2"] = json.dumps(records["2"] | {"inferred": "yes"})
    text["3"] = json.dumps(
        records["3"] | {"Location": "closed/X/%2e%2e/%2E%2E/../someone/else"}
    )
    text["4"] = json.dumps(records["4"]).replace(
        '"SystemName": "', '"SystemName": "evil \\ud800 '
    )
    text["5"] = json.dumps(records["5"] | {"Model": "index", "MlperfModel": "index"})
    text["6"] = json.dumps(records["6"] | {"Location": "closed\\..\\..\\x"})
    text["7"] = json.dumps(records["7"] | {"Availability": "on-premise"})
    text["8"] = json.dumps(records["8"] | {"Division": "Closed"})
    # Invisible characters (issue 56 B): a bidi isolate, a tag character, a filler.
    text["9"] = json.dumps(
        records["9"] | {"SystemName": INVISIBLE_NAME}, ensure_ascii=False
    )
    return "{" + ", ".join(f'"{k}": {v}' for k, v in text.items()) + "}"


@pytest.fixture(scope="module")
def built(mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    source = tmp_path_factory.mktemp("source")
    records = json.loads(
        (mirror / "inference_results_v6.1" / "summary.json").read_text()
    )
    (source / "inference_results_v6.1").mkdir()
    (source / "inference_results_v6.1" / "summary.json").write_text(_hostile(records))
    work = tmp_path_factory.mktemp("work")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MLPERF_SOURCE", str(source))
        env.setenv("MLPERF_DATA_DIR", str(work / "data"))
        env.setenv("DAGSTER_HOME", str(work / "data" / "dagster_home"))
        env.setenv("MLPERF_BUILD_DIR", str(work / "build"))
        instance = runner.get_instance()
        lines: list[str] = []
        outcomes = runner.ingest(
            instance, ["v6.1", "v99.99"], progress=lines.append, site=True
        )
        yield {"work": work, "lines": lines, "outcomes": outcomes, "instance": instance}


def test_every_good_record_publishes_and_each_bad_one_says_why(built: dict) -> None:
    assert all(o.success for o in built["outcomes"] if o.label != "v99.99")
    data = built["work"] / "data" / "assets"
    results = pl.read_parquet(data / "core_mlperf__results" / "v6.1.parquet")
    rejected = pl.read_parquet(data / "core_mlperf__rejected" / "v6.1.parquet")
    assert results.height == RECORDS - 5
    reasons = dict(rejected.select("source_record", "reason").rows())
    assert reasons["1"] == 'field "Result" appears more than once in the record'
    assert reasons["2"].startswith('field "inferred" is not one of the documented')
    assert reasons["3"].startswith("Location 'closed/X/%2e%2e/%2E%2E/../someone/else'")
    assert "unpaired surrogate" in reasons["4"]
    assert reasons["6"].startswith("Location 'closed\\..\\..\\x' leads outside")
    assert "5" in set(results["source_record"])  # "index" is a name, not a problem
    # Words outside the vocabulary are kept, never a reason to reject.
    kept = {r["source_record"]: r for r in results.rows(named=True)}
    assert (kept["7"]["availability"], kept["7"]["availability_upstream"]) == (
        "unknown",
        "on-premise",
    )
    assert (kept["8"]["division"], kept["8"]["division_upstream"]) == (
        "closed",
        "Closed",
    )
    audit = (built["work"] / "build" / "site" / "generated" / "audit.html").read_text()
    words = audit.split("Words outside the vocabulary", 1)[1]
    assert "<code>on-premise</code>" in words
    # Loss is loud on Audit too: 5 of 492 is above 1%, so its share is bold.
    loss = audit.split('id="rejected-records"', 1)[1].split("</table>", 1)[0]
    assert re.search(
        r'Results">487</td>.*Rejected">5</td>.*Share"><b>1\.0%</b>', loss
    ), loss


def test_no_link_on_the_site_leaves_the_rounds_repository(built: dict) -> None:
    site = built["work"] / "build" / "site"
    hrefs = {
        href
        for page in site.rglob("*.html")
        for href in re.findall(r'href="(https://github\.com/[^"]+)"', page.read_text())
    }
    rounds = [h for h in hrefs if "/inference_results_v6.1/" in h]
    assert rounds
    for href in rounds:
        path = href.split("/inference_results_v6.1/", 1)[1]
        assert not re.search(r"(^|/)\.{1,2}(/|$)|%2e", path, re.I), href


def test_a_benchmark_named_index_gets_its_own_page(built: dict) -> None:
    benchmarks = built["work"] / "build" / "site" / "generated" / "benchmarks"
    assert "Benchmarks" in (benchmarks / "index.html").read_text()
    (page,) = benchmarks.glob("index--*.html")
    assert "<h1" in page.read_text()


def test_the_typo_release_left_nothing(built: dict) -> None:
    assert "v99.99" not in built["instance"].get_dynamic_partitions("release")
    known = json.loads((built["work"] / "data" / "known_releases.json").read_text())
    assert "v99.99" not in known


def test_no_invisible_character_is_raw_in_any_page(built: dict) -> None:
    site = built["work"] / "build" / "site"
    raw = sorted(
        str(page.relative_to(site))
        for page in site.rglob("*.html")
        if INVISIBLE_PATTERN.search(page.read_text())
    )
    assert raw == []
    shown = "Hidden[U+2066] System[U+E0041][U+3164][U+200B]"
    pages = [p for p in site.rglob("*.html") if shown in html.unescape(p.read_text())]
    assert pages  # the name is published, visibly
