"""Hostile input: duplicated keys and values, odd spellings, links out of the repository.

Nothing changes silently: a field named twice, an unreadable character or a location
leaving its repository rejects what it touches, naming it; no link leaves the round.
"""

from __future__ import annotations

import json

import pytest

from pipeline.extract.run_files import (
    LogSummaryError,
    SystemJsonError,
    parse_log_summary,
    parse_system_json,
)
from pipeline.extract.summary import SummaryFormatError, parse_summary, summary_tables
from pipeline.registry.rounds import rules_for
from tests.unit.test_raw_tree import log
from tests.unit.test_results_normalise import FINAL_REPORT


def tables(text: str):
    return summary_tables(
        text.encode(),
        release="v6.0",
        repository="mlcommons/inference_results_v6.0",
        source_file="summary_results.json",
        sha256="abc",
    )


def test_a_field_named_twice_rejects_its_record_naming_the_field() -> None:
    good = json.dumps(FINAL_REPORT | {"ID": "6.0-0002"})
    twice = json.dumps(FINAL_REPORT)[:-1] + ', "Performance_Result": 1.0}'
    results, rejected, _ = tables(f"[{good}, {twice}]")
    assert results["result_id"].to_list() == ["6.0-0002"]
    assert rejected["reason"].to_list() == [
        'field "Performance_Result" appears more than once in the record'
    ]


def test_a_record_key_named_twice_refuses_the_file() -> None:
    record = json.dumps(FINAL_REPORT)
    other = json.dumps(FINAL_REPORT | {"ID": "6.0-0002"})
    text = f'{{"0": {record}, "1": {other}, "0": {other}}}'
    with pytest.raises(SummaryFormatError) as info:
        parse_summary(text.encode(), release="v6.1", file="summary.json")
    assert str(info.value) == (
        'v6.1 summary.json: record key "0" appears more than once; refusing the file '
        "(one of the records would silently be lost)"
    )


def test_a_key_repeated_with_the_same_value_changes_nothing() -> None:
    """Upstream v1.1 closed/Alibaba repeats "status": "available" in a system."""
    twice = json.dumps(FINAL_REPORT)[:-1] + ', "Submitter": "AMD"}'
    results, rejected, _ = tables(f"[{twice}]")
    assert rejected.is_empty() and results.height == 1
    fields = parse_system_json(
        '{"status": "available", "division": "closed", "status": "available", '
        '"host_cooling_type": "air", "host_cooling_type": ""}',
        where="v1.1 closed/A/systems/s.json",
    )
    # A field this reader never keeps may differ (upstream v1.1 Dell's cooling).
    assert fields["status"] == "available"


def test_a_system_description_naming_a_field_twice_is_unreadable() -> None:
    text = '{"status": "available", "division": "closed", "status": "preview"}'
    with pytest.raises(SystemJsonError) as info:
        parse_system_json(text, where="v5.1 closed/A/systems/s.json")
    assert str(info.value) == (
        'v5.1 closed/A/systems/s.json: field "status" appears more than once in the '
        "system description"
    )


def test_two_different_values_for_one_metric_reject_the_result() -> None:
    text = log("Offline", "Samples per second: 10\nSamples per second: 12.5\n")
    with pytest.raises(LogSummaryError) as info:
        parse_log_summary(text, where="v2.1 x", rules=rules_for("v2.1"))
    assert str(info.value) == (
        "v2.1 x: 'Samples per second' appears twice with different values "
        "(10 and 12.5); which one loadgen reported is unknown"
    )
    latency = log(
        "SingleStream",
        "90th percentile latency (ns) : 100\n90th percentile latency (ns) : 200\n",
    )
    with pytest.raises(
        LogSummaryError,
        match="'90th percentile latency \\(ns\\)' "
        "appears twice with different values \\(100 and 200\\)",
    ):
        parse_log_summary(latency, where="v1.0 x", rules=rules_for("v1.0"))
    estimate = log(
        "SingleStream",
        "90th percentile latency (ns) : 100\n",
        result="VALID\nEarly Stopping Result:\n"
        " * Early stopping 90th percentile estimate: 101\n"
        " * Early stopping 90th percentile estimate: 150",
    )
    with pytest.raises(LogSummaryError, match="estimate' appears twice"):
        parse_log_summary(estimate, where="v2.1 x", rules=rules_for("v2.1"))
    same = log("Offline", "Samples per second: 10\nSamples per second: 10\n")
    assert (
        parse_log_summary(same, where="x", rules=rules_for("v2.1")).metric_value == 10
    )


@pytest.mark.parametrize(
    ("flag", "inferred"), [(0, False), (1, True), ("1", True), ("True", True),
                           ("false", False), (None, False)],
)  # fmt: skip
def test_documented_inferred_spellings(flag: object, inferred: bool) -> None:
    results, rejected, _ = tables(json.dumps([FINAL_REPORT | {"inferred": flag}]))
    assert rejected.is_empty()
    assert results["is_inferred_upstream"].to_list() == [inferred]


@pytest.mark.parametrize("flag", ["yes", "Y", "2", "inferred"])
def test_any_other_inferred_spelling_is_rejected_naming_the_field(flag: str) -> None:
    _, rejected, _ = tables(json.dumps([FINAL_REPORT | {"inferred": flag}]))
    assert rejected["reason"].to_list() == [
        'field "inferred" is not one of the documented spellings (0, 1, true, '
        f"false): '{flag}'"
    ]


@pytest.mark.parametrize(
    "location",
    [
        "../../../../someone/else",
        "closed/A/../../../x",
        "%2e%2e/%2E%2E/someone/else",
        "closed%2f..%2f..%2fx",
        "closed\\..\\..\\someone",
        "./../x",
        "/someone/else",
        "closed/A/./results",
    ],
)
def test_a_location_that_leaves_the_repository_rejects_the_record(
    location: str,
) -> None:
    results, rejected, _ = tables(json.dumps([FINAL_REPORT | {"Location": location}]))
    assert results.is_empty()
    (reason,) = rejected["reason"].to_list()
    assert reason.startswith(f"Location '{location.removeprefix('./')}' leads outside")


@pytest.mark.parametrize(
    "location", ["./closed/A/results/s/b/Offline", "closed/a..b/x", "closed/.hidden/y"]
)
def test_ordinary_locations_keep_their_link(location: str) -> None:
    results, rejected, _ = tables(json.dumps([FINAL_REPORT | {"Location": location}]))
    assert rejected.is_empty()
    (url,) = results["result_url"].to_list()
    assert url == (
        "https://github.com/mlcommons/inference_results_v6.0/tree/HEAD/"
        + location.removeprefix("./")
    )


def test_an_unpaired_surrogate_rejects_its_record_and_the_rest_is_read() -> None:
    good = json.dumps(FINAL_REPORT | {"ID": "6.0-0002"})
    bad = json.dumps(FINAL_REPORT).replace('"System": "', '"System": "evil \\ud800 ')
    results, rejected, _ = tables(f"[{bad}, {good}]")
    assert results["result_id"].to_list() == ["6.0-0002"]
    assert rejected["reason"].to_list() == [
        'field "System" holds an unpaired surrogate escape (such as \\ud800), which '
        "is not text"
    ]


def test_a_system_description_with_an_unpaired_surrogate_is_unreadable() -> None:
    with pytest.raises(SystemJsonError) as info:
        parse_system_json('{"status": "\\udc00"}', where="v5.1 s.json")
    assert str(info.value) == (
        'v5.1 s.json: field "status" holds an unpaired surrogate escape (such as '
        "\\ud800), which is not text"
    )


def test_listing_entries_that_name_no_file_are_kept_and_said() -> None:
    import httpx

    from pipeline.source import Source

    listing = {
        "truncated": False,
        "tree": [
            "closed/A/systems/s.json",
            {"type": "blob"},
            {"path": "closed/A/systems/t.json", "type": "blob", "sha": "a" * 40},
        ],
    }
    source = Source(
        base="https://raw.githubusercontent.com/mlcommons/{repo}/HEAD",
        transport=httpx.MockTransport(
            lambda request: httpx.Response(200, json=listing)
        ),
    )
    got = source.listing("mlcommons/inference_results_v9.9")
    assert got.paths == ["closed/A/systems/t.json"]
    assert got.malformed == [
        'entry 0: "closed/A/systems/s.json" (not an object with a path)',
        'entry 1: {"type": "blob"} (not an object with a path)',
    ]


def test_control_characters_never_reach_html_or_csv() -> None:
    import polars as pl

    from pipeline.render.downloads import neutralise_formula
    from pipeline.render.escape import escape

    assert escape("evil\x00name\x1b[31m") == "evil\ufffdname\ufffd&#91;31m"
    cells = pl.Series(["\uff1dcmd()", "\uff0bx", "|calc", "a\x00b", "plain"])
    assert pl.select(neutralise_formula(pl.lit(cells))).to_series().to_list() == [
        "'\uff1dcmd()",
        "'\uff0bx",
        "'|calc",
        "a\ufffdb",
        "plain",
    ]


def test_invented_keys_are_one_column_whatever_their_number(mirror) -> None:
    """Memory proportional to the file: rare fields fold into one JSON column."""
    from pipeline.extract.summary import OTHER_FIELDS

    records = json.loads(
        (mirror / "inference_results_v6.1" / "summary.json").read_text()
    )
    plain = parse_summary(
        json.dumps(records).encode(), release="v6.1", file="summary.json",
        all_fields=True,
    ).frame  # fmt: skip
    padded = {
        k: r | {f"x-{k}-{i}": "v" for i in range(160)} for k, r in records.items()
    }
    frame = parse_summary(
        json.dumps(padded).encode(), release="v6.1", file="summary.json",
        all_fields=True,
    ).frame  # fmt: skip
    assert frame.width == plain.width + 1
    assert json.loads(frame[OTHER_FIELDS][0]) == {
        f"x-{next(iter(records))}-{i}": "v" for i in range(160)
    }


def test_a_byte_order_mark_is_not_content() -> None:
    html = b"\xef\xbb\xbf<!DOCTYPE html><html>rate limited</html>"
    with pytest.raises(SummaryFormatError) as info:
        parse_summary(html, release="v6.1", file="summary.json")
    assert str(info.value) == (
        "v6.1 summary.json: looks like an HTML page, not JSON (starts with "
        "'<!DOCTYPE html><html>rate limited</html>')"
    )
    with_bom = b"\xef\xbb\xbf" + json.dumps([FINAL_REPORT]).encode()
    assert parse_summary(with_bom, release="v6.0", file="s.json").frame.height == 1


def test_a_body_that_does_not_decode_names_the_url() -> None:
    import gzip

    import httpx

    from pipeline.source import Source, SourceError

    body = gzip.compress(b"{}")  # gzipped once, declared twice
    source = Source(
        base="http://mirror.test/{repo}",
        transport=httpx.MockTransport(
            lambda r: httpx.Response(
                200, content=body, headers={"Content-Encoding": "gzip, gzip"}
            )
        ),
    )
    with pytest.raises(SourceError) as info:
        source.fetch("inference_results_v6.1", "summary.json")
    assert str(info.value).startswith(
        "http://mirror.test/inference_results_v6.1/summary.json: the response body "
        "does not decode as its Content-Encoding says ("
    )


def test_quarantine_keeps_the_newest_files_only(tmp_path) -> None:
    import datetime as dt

    from pipeline.snapshots import QUARANTINE_KEEP, SnapshotStore
    from pipeline.source import Fetched

    store = SnapshotStore(tmp_path)
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    for index in range(QUARANTINE_KEEP + 5):
        bad = Fetched(url="u", content=f"broken {index}".encode(), fetched_at=now)
        store.quarantine("v6.1", "summary.json", bad, "invalid")
    folder = tmp_path / "quarantine" / "v6.1"
    assert len(list(folder.glob("*.meta.json"))) == QUARANTINE_KEEP
    assert len(list(folder.glob("*.json"))) == 2 * QUARANTINE_KEEP
    kept = {json.loads(p.read_text())["bytes"] for p in folder.glob("*.meta.json")}
    assert len("broken 24") in kept  # the newest stays


def test_names_differing_only_by_an_invisible_character_look_different() -> None:
    from pipeline.render.escape import escape

    assert escape("NVIDIA\u200b H100") == "NVIDIA&#91;U+200B&#93; H100"
    assert escape("NVIDIA H100") == "NVIDIA H100"
