"""The latency-limits registry: committed values, sources, and every malformed entry."""

from __future__ import annotations

import copy

import pytest

from pipeline.latency_limits import (
    LatencyLimitsError,
    limits_frame,
    load_latency_limits,
    parse_limits,
)

SOURCE = {
    "id": "checker",
    "repository": "mlcommons/inference",
    "path": "tools/submission/submission_checker/constants.py",
    "commit": "001d64ca1a8079d7a1cebee5eeac56f743dc0c57",
    "symbol": "LLM_LATENCY_LIMITS",
    "covers": ["v5.1"],
    "note": "one table for every round",
}
LIMIT = {
    "release": "v5.1",
    "benchmark": "llama2-70b-99",
    "scenario": "Interactive",
    "ttft_ms": 450,
    "tpot_ms": 40,
    "source": "checker",
}


def document(**limit_overrides: object) -> dict:
    limit = {**LIMIT, **limit_overrides}
    return {"source": [dict(SOURCE)], "limit": [limit]}


def test_committed_values_are_the_checkers() -> None:
    """Spot values as upstream's checker writes them (ns / 1e6)."""
    frame = limits_frame()
    keyed = {
        (r["release"], r["benchmark"], r["scenario"]): (r["ttft_ms"], r["tpot_ms"])
        for r in frame.iter_rows(named=True)
    }
    assert keyed[("v4.1", "llama2-70b-99", "Server")] == (2000.0, 200.0)
    assert keyed[("v5.1", "llama3.1-8b", "Interactive")] == (500.0, 30.0)
    assert keyed[("v6.0", "deepseek-r1", "Interactive")] == (1500.0, 15.0)
    assert keyed[("v6.0", "gpt-oss-120b", "Server")] == (3000.0, 80.0)
    assert keyed[("v6.0", "llama3.1-405b", "Server")] == (6000.0, 175.0)
    # Not sourced, so not entered: v6.1, gptj, qwen3-vl.
    assert not frame.filter(frame["release"] == "v6.1").height
    assert not frame.filter(frame["benchmark"].str.starts_with("gptj")).height
    assert not frame.filter(frame["benchmark"].str.starts_with("qwen3")).height
    assert frame.height == 32


def test_every_committed_limit_cites_repository_path_and_commit() -> None:
    frame = limits_frame()
    urls = set(frame["source_url"])
    assert urls == {
        "https://github.com/mlcommons/inference/blob/"
        "af2780c84e35417606fd7fccb7e4cd940a0acccf/tools/submission/"
        "submission_checker.py",
        "https://github.com/mlcommons/inference/blob/"
        "001d64ca1a8079d7a1cebee5eeac56f743dc0c57/tools/submission/"
        "submission_checker/constants.py",
    }
    v41 = frame.filter(frame["release"] == "v4.1")
    assert set(v41["source_path"]) == {"tools/submission/submission_checker.py"}
    assert load_latency_limits()[0].source.symbol == "LLM_LATENCY_LIMITS"


def test_valid_document_parses() -> None:
    (limit,) = parse_limits(document(), "test.toml")
    assert (limit.ttft_ms, limit.tpot_ms, limit.source.id) == (450.0, 40.0, "checker")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            {"scenario": "Offline"},
            "test.toml limit 1 (v5.1 llama2-70b-99 Offline): scenario must be one of "
            "Server, Interactive, not 'Offline'",
        ),
        (
            {"tpot_ms": -40},
            "test.toml limit 1 (v5.1 llama2-70b-99 Interactive): tpot_ms must be a "
            "positive number of milliseconds, not -40",
        ),
        (
            {"ttft_ms": "450"},
            "test.toml limit 1 (v5.1 llama2-70b-99 Interactive): ttft_ms must be a "
            "positive number of milliseconds, not '450'",
        ),
        (
            {"ttft_ms": True},
            "test.toml limit 1 (v5.1 llama2-70b-99 Interactive): ttft_ms must be a "
            "positive number of milliseconds, not True",
        ),
        (
            {"source": "rumour"},
            "test.toml limit 1 (v5.1 llama2-70b-99 Interactive): source 'rumour' is "
            "not a [[source]]",
        ),
        (
            {"release": "v6.0"},
            "test.toml limit 1 (v6.0 llama2-70b-99 Interactive): source 'checker' "
            "covers v5.1, not v6.0",
        ),
        ({"benchmark": ""}, "test.toml limit 1: benchmark is missing or empty"),
        (
            {"latency_ms": 5},
            "test.toml limit 1 (v5.1 llama2-70b-99 Interactive): unknown field(s) "
            "latency_ms",
        ),
    ],
)
def test_bad_limit_is_named(overrides: dict, message: str) -> None:
    with pytest.raises(LatencyLimitsError) as caught:
        parse_limits(document(**overrides), "test.toml")
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (
            "commit",
            "HEAD",
            "test.toml source 1 (checker): commit must be 40 lower-case hex digits, "
            "not 'HEAD'",
        ),
        (
            "repository",
            "inference",
            "test.toml source 1 (checker): repository must be owner/name, not "
            "'inference'",
        ),
        ("path", "  ", "test.toml source 1 (checker): path is missing or empty"),
        (
            "covers",
            ["5.1"],
            "test.toml source 1 (checker): covers must list rounds such as 'v5.1'",
        ),
    ],
)
def test_bad_source_is_named(field: str, value: object, message: str) -> None:
    doc = document()
    doc["source"][0][field] = value
    with pytest.raises(LatencyLimitsError) as caught:
        parse_limits(doc, "test.toml")
    assert str(caught.value) == message


def test_limit_listed_twice_is_refused() -> None:
    doc = document()
    doc["limit"].append(copy.deepcopy(doc["limit"][0]))
    with pytest.raises(LatencyLimitsError) as caught:
        parse_limits(doc, "test.toml")
    assert str(caught.value) == (
        "test.toml: listed twice: v5.1 llama2-70b-99 Interactive"
    )


def test_file_on_disk_is_read(tmp_path) -> None:
    path = tmp_path / "limits.toml"
    path.write_text(
        '[[source]]\nid = "c"\nrepository = "mlcommons/inference"\npath = "x.py"\n'
        'commit = "' + "a" * 40 + '"\nsymbol = "S"\ncovers = ["v6.0"]\nnote = "n"\n'
        '[[limit]]\nrelease = "v6.0"\nbenchmark = "b"\nscenario = "Server"\n'
        'ttft_ms = 3000\ntpot_ms = 80.5\nsource = "c"\n'
    )
    (limit,) = load_latency_limits(path)
    assert (limit.benchmark, limit.tpot_ms) == ("b", 80.5)
