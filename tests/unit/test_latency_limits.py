"""The latency-limits registry: committed values, sources, and every malformed entry."""

from __future__ import annotations

import copy

import polars as pl
import pytest

from pipeline.latency_limits import limits_frame
from pipeline.registry.latency_limits import (
    LatencyLimitsError,
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
    # v6.1 from the checker of 2026-08-20, whose MODEL_CONFIG holds v6.1.
    assert keyed[("v6.1", "deepseek-r1", "Interactive")] == (1500.0, 15.0)
    assert keyed[("v6.1", "llama2-70b-99.9", "Interactive")] == (450.0, 40.0)
    assert keyed[("v6.1", "gpt-oss-120b", "Server")] == (3000.0, 80.0)
    # Not sourced, so not entered: gptj.
    assert not frame.filter(frame["benchmark"].str.starts_with("gptj")).height
    assert frame.height == 42


def test_qwen3_vl_v61_is_bounded_by_its_end_to_end_latency() -> None:
    """MODEL_CONFIG["v6.1"]["latency-constraint"] at b66003e1: 12e9 and 1.5e9 ns."""
    frame = limits_frame().filter(benchmark="qwen3-vl-235b-a22b")
    columns = ("release", "scenario", "ttft_ms", "tpot_ms", "latency_ms")
    assert frame.select(columns).rows() == [
        ("v6.1", "Server", None, None, 12000.0),
        ("v6.1", "Interactive", None, None, 1500.0),
    ]
    assert set(frame["source_symbol"]) == {'MODEL_CONFIG["v6.1"]["latency-constraint"]'}
    assert set(frame["source_commit"]) == {"b66003e10e2db4b8c36a448b0545ec90fcc6e9e9"}
    # Token-streaming benchmarks keep TTFT and TPOT, no end-to-end bound.
    others = limits_frame().filter(pl.col("benchmark") != "qwen3-vl-235b-a22b")
    assert others["latency_ms"].is_null().all()
    assert others["tpot_ms"].is_not_null().all()


def test_an_end_to_end_limit_stands_alone() -> None:
    entry = {k: v for k, v in LIMIT.items() if k not in ("ttft_ms", "tpot_ms")}
    (limit,) = parse_limits(
        {"source": [dict(SOURCE)], "limit": [entry | {"latency_ms": 1500}]}
    )
    assert (limit.latency_ms, limit.ttft_ms, limit.tpot_ms) == (1500.0, None, None)


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
        "https://github.com/mlcommons/inference/blob/"
        "b66003e10e2db4b8c36a448b0545ec90fcc6e9e9/tools/submission/"
        "submission_checker/constants.py",
    }
    v41 = frame.filter(frame["release"] == "v4.1")
    assert set(v41["source_path"]) == {"tools/submission/submission_checker.py"}
    assert load_latency_limits()[0].source.symbol == "LLM_LATENCY_LIMITS"


def test_valid_document_parses() -> None:
    (limit,) = parse_limits(document(), "test.toml")
    assert (limit.ttft_ms, limit.tpot_ms, limit.source.id) == (450.0, 40.0, "checker")


LIMIT_1 = "test.toml: [limit 1 (v5.1 llama2-70b-99 Interactive)] "


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            {"scenario": "Offline"},
            "test.toml: [limit 1 (v5.1 llama2-70b-99 Offline)] scenario: expected "
            "one of 'Server', 'Interactive', got 'Offline'",
        ),
        (
            {"tpot_ms": -40},
            LIMIT_1 + "tpot_ms: expected a positive number of milliseconds, got -40",
        ),
        (
            {"ttft_ms": "450"},
            LIMIT_1 + "ttft_ms: expected a positive number of milliseconds, got '450'",
        ),
        (
            {"ttft_ms": True},
            LIMIT_1 + "ttft_ms: expected a positive number of milliseconds, got True",
        ),
        (
            {"source": "rumour"},
            LIMIT_1 + "source: expected the id of a [[source]], got 'rumour'",
        ),
        (
            {"release": "v6.0"},
            "test.toml: [limit 1 (v6.0 llama2-70b-99 Interactive)] source: "
            "'checker' covers v5.1, not v6.0",
        ),
        (
            {"benchmark": ""},
            "test.toml: [limit 1] benchmark: expected a non-empty string, got ''",
        ),
        (
            {"latency_s": 5},
            LIMIT_1 + "latency_s: unknown field (known: benchmark, latency_ms, "
            "release, scenario, source, tpot_ms, ttft_ms)",
        ),
        (
            {"latency_ms": 5},
            LIMIT_1 + "ttft_ms: an end-to-end latency_ms limit has no TTFT or "
            "TPOT; give one form or the other",
        ),
        (
            {"tpot_ms": None},
            LIMIT_1 + "tpot_ms: expected a positive number of milliseconds, got None",
        ),
    ],
)
def test_bad_limit_is_named(overrides: dict, message: str) -> None:
    with pytest.raises(LatencyLimitsError) as caught:
        parse_limits(document(**overrides), "test.toml")
    assert str(caught.value) == message


def test_a_missing_field_is_named_as_missing() -> None:
    doc = document()
    del doc["limit"][0]["tpot_ms"]
    with pytest.raises(LatencyLimitsError) as caught:
        parse_limits(doc, "test.toml")
    assert str(caught.value) == (
        LIMIT_1 + "tpot_ms: expected a positive number of milliseconds, got nothing"
    )


SOURCE_1 = "test.toml: [source 1 (checker)] "


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (
            "commit",
            "HEAD",
            SOURCE_1 + "commit: expected 40 lower-case hex digits, got 'HEAD'",
        ),
        (
            "repository",
            "inference",
            SOURCE_1 + "repository: expected a repository owner/name, got 'inference'",
        ),
        ("path", "  ", SOURCE_1 + "path: expected a non-empty string, got '  '"),
        (
            "covers",
            ["5.1"],
            SOURCE_1 + "covers: expected a list of rounds vX.Y (at least one), "
            "got ['5.1']",
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
        "test.toml: [limit 2 (v5.1 llama2-70b-99 Interactive)] scenario: this round, "
        "benchmark and scenario are listed twice"
    )


def test_limits_must_be_an_array_of_tables() -> None:
    with pytest.raises(LatencyLimitsError) as caught:
        parse_limits({"source": [dict(SOURCE)], "limit": dict(LIMIT)}, "test.toml")
    assert str(caught.value).startswith(
        "test.toml: limit: expected an array of tables [[limit]], got {"
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
