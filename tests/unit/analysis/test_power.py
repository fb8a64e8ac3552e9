"""power_results / power_gains on hand-written rows: the two power kinds, bad rows, gains."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.analysis.power import (
    POWER_GAIN_SCHEMA,
    POWER_SCHEMA,
    power_gains,
    power_results,
)
from pipeline.registry.benchmarks import parse_compatibility
from tests.unit.analysis.helpers import B200, H100, frame, row

BREAK = "resnet Offline changed in v6.0 (test rule)"
RULES = parse_compatibility(
    {
        "compatibility": [
            {
                "benchmark": "resnet",
                "scenario": "Offline",
                "incompatible_between": ["v5.1", "v6.0"],
                "reason": BREAK,
            }
        ]
    }
)


def _power(*rows: dict) -> pl.DataFrame:
    return power_results(frame(*rows)).collect()


def test_watts_give_throughput_per_watt_and_millijoules_queries_per_joule() -> None:
    power = _power(
        row(result_key="off", result_value=12000.0, power_value=6000.0,
            power_unit="Watts"),
        row(result_key="ss", scenario="SingleStream", result_unit="Latency (ms)",
            result_value=2.5, power_value=25.0, power_unit="millijoules"),
        row(result_key="none", result_value=1.0),  # no power: not listed
    )  # fmt: skip
    assert power.schema == pl.Schema(POWER_SCHEMA)
    assert power.select(
        "result_key", "power_kind", "efficiency", "efficiency_unit", "efficiency_note"
    ).rows() == [
        ("off", "average power", 2.0, "Tokens/s per W", None),
        # 25 mJ per query: 40 queries per joule; the latency itself is not divided.
        ("ss", "energy per query", 40.0, "queries/J", None),
    ]


@pytest.mark.parametrize(
    ("overrides", "note"),
    [
        (
            {"power_value": 500.0, "power_unit": "millijoules"},
            "power unit millijoules does not fit Offline (which reports Watts)",
        ),
        (
            {"power_value": 500.0, "power_unit": "kW"},
            "power unit kW does not fit Offline (which reports Watts)",
        ),
        (
            {"power_value": 500.0, "power_unit": None},
            "power unit (none) does not fit Offline (which reports Watts)",
        ),
        (
            {"power_value": 0.0, "power_unit": "Watts"},
            "power value 0.0 is not a positive number",
        ),
        (
            {"power_value": None, "power_unit": "Watts"},
            "power value null is not a positive number",
        ),
        (
            {
                "scenario": "SingleStream",
                "result_unit": "Latency (ms)",
                "power_value": 80.0,
                "power_unit": "Watts",
            },
            "power unit Watts does not fit SingleStream (which reports millijoules)",
        ),
    ],
)
def test_unusable_power_is_listed_with_its_reason(overrides: dict, note: str) -> None:
    power = _power(row(result_key="bad", **overrides))
    assert power.select("result_key", "efficiency", "efficiency_note").rows() == [
        ("bad", None, note)
    ]


def _gains(*rows: dict) -> pl.DataFrame:
    return power_gains(power_results(frame(*rows)), RULES).collect()


def test_same_system_gain_between_rounds_with_power_cites_both_ends() -> None:
    system = {"submitter": "Acme", "system_name": "Acme 8x H100", "power_unit": "Watts"}
    gains = _gains(
        row(release="v4.1", result_key="a41", result_value=1000.0, power_value=500.0,
            **system),
        # v5.1 without power: the line skips it, the next step starts from v4.1.
        row(release="v5.1", result_key="a51", result_value=1500.0, **system),
        row(release="v6.0", result_key="a60", result_value=1800.0, power_value=600.0,
            **system),
        # Same name, other chip count, or other submitter: other lines, one round each.
        row(release="v6.0", result_key="b60", total_accelerators=4,
            result_value=1.0, power_value=1.0, **system),
        row(release="v4.1", result_key="c41", submitter="Other", system_name="Acme 8x H100",
            result_value=9.0, power_value=1.0, power_unit="Watts"),
    )  # fmt: skip
    assert gains.schema == pl.Schema(POWER_GAIN_SCHEMA)
    assert gains.select(
        "release_old", "result_key_old", "efficiency_old",
        "release_new", "result_key_new", "efficiency_new", "ratio",
        "result_url_old", "result_url_new",
    ).rows() == [
        ("v4.1", "a41", 2.0, "v6.0", "a60", 3.0, 1.5,
         "https://example.org/a41", "https://example.org/a60"),
    ]  # fmt: skip


def test_gain_across_a_forbidden_boundary_has_no_ratio_but_its_reason() -> None:
    system = {
        "benchmark": "resnet",
        "model_upstream": "resnet",
        "result_unit": "Samples/s",
        "power_unit": "Watts",
    }
    gains = _gains(
        row(release="v5.1", result_key="r51", result_value=100.0, power_value=10.0,
            **system),
        row(release="v6.0", result_key="r60", result_value=300.0, power_value=10.0,
            **system),
    )  # fmt: skip
    assert gains.select("ratio", "incompatibility_reason").rows() == [(None, BREAK)]


def test_no_gain_across_accelerators() -> None:
    gains = _gains(
        row(release="v5.1", result_key="h", accelerator_name=H100, power_value=10.0,
            power_unit="Watts"),
        row(release="v6.0", result_key="b", accelerator_name=B200, power_value=10.0,
            power_unit="Watts"),
    )  # fmt: skip
    assert gains.height == 0


def test_no_gain_across_result_units() -> None:
    # llama2-70b reported Samples/s before it reported Tokens/s: Samples/s per W and
    # Tokens/s per W are not one line, even for one system.
    gains = _gains(
        row(release="v5.1", result_key="s", result_unit="Samples/s",
            result_value=10.0, power_value=10.0, power_unit="Watts"),
        row(release="v6.0", result_key="t", result_unit="Tokens/s",
            result_value=3000.0, power_value=10.0, power_unit="Watts"),
    )  # fmt: skip
    assert gains.height == 0
