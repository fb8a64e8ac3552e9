"""The committed claims registry evaluated on the real mirror (v4.1 to v6.1), no Dagster.

Every seeded claim is pinned to its verdict, its computed value (written as the
quotient of the published results it rests on) and the result keys it cites, so a
change in the analysis, the registry or the rounding rules shows up here by name.
"""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.analysis import analyse
from pipeline.claims import (
    EVALUATION_SCHEMA,
    claim_verdicts,
    evaluate_claims,
    load_claims,
)
from pipeline.render.claims_page import claims_for_release, render_claims_page

PER_ACC = " (normalised per accelerator)"
RACK = "GB300-NVL72_GB300-288GB_aarch64x72_TRT"
V61 = "v6.1:closed/{}/{}/deepseek-r1/{}"
#: Vera Rubin NVL72, deepseek-r1 Offline, v6.1 (NVIDIA, preview): upstream publishes it
#: with all its digits.
VR_OFFLINE = 1183326.8540322022


def v61(submitter: str, platform: str, scenario: str = "Offline") -> str:
    return V61.format(submitter, platform, scenario)


#: claim id -> overall verdict, and per reading (verdict, value, old key, new key).
EXPECTED: dict[str, tuple[str, dict[str, tuple]]] = {
    "illustrative-gb300-dsr1-offline-v51-v60": (
        "consistent",
        {
            "system": (
                "consistent", 647076 / 420659,
                "5.1-0072:deepseek-r1:Offline", "6.0-0078:deepseek-r1:Offline",
            ),
            # Best 72-GPU result of v6.0 is Nebius's.
            "hardware": (
                "inconsistent", 673936 / 420659,
                "5.1-0072:deepseek-r1:Offline", "6.0-0081:deepseek-r1:Offline",
            ),
            # Best per GPU: CoreWeave's 8-GPU systems (the v5.1 one a preview).
            "accelerator" + PER_ACC: (
                "inconsistent", (78564 / 8) / (48047 / 8),
                "5.1-0097:deepseek-r1:Offline", "6.0-0017:deepseek-r1:Offline",
            ),
        },
    ),
    "illustrative-gb300-dsr1-up-to-v51-v60": (
        "consistent",
        {
            "system": (
                "consistent", 400437 / 209328,
                "5.1-0072:deepseek-r1:Server", "6.0-0078:deepseek-r1:Server",
            ),
        },
    ),
    "illustrative-gb300-dsr1-server-per-gpu-v51-v60": (
        "consistent",
        {
            "system": (
                "inconsistent", 400437 / 209328,
                "5.1-0072:deepseek-r1:Server", "6.0-0078:deepseek-r1:Server",
            ),
            "hardware": (
                "inconsistent", 575580 / 209328,
                "5.1-0072:deepseek-r1:Server", "6.0-0081:deepseek-r1:Server",
            ),
            "accelerator" + PER_ACC: (
                "consistent", (64510.0 / 8) / (209328 / 72),
                "5.1-0072:deepseek-r1:Server", "6.0-0082:deepseek-r1:Server",
            ),
        },
    ),
    "illustrative-gb300-dsr1-scaling-v60": (
        "consistent",
        {
            "same_submitter": (
                "consistent", (2494310 / 647076) / 4 * 100,
                "6.0-0078:deepseek-r1:Offline", "6.0-0076:deepseek-r1:Offline",
            ),
            "best_of_any": (
                "inconsistent", (2494310 / 673936) / 4 * 100,
                "6.0-0081:deepseek-r1:Offline", "6.0-0076:deepseek-r1:Offline",
            ),
        },
    ),
    "illustrative-gb300-dsr1-scaling-576-v60": (
        "not reproducible",
        {
            "same_submitter": ("not reproducible", None, None, None),
            "best_of_any": ("not reproducible", None, None, None),
        },
    ),
    "illustrative-vera-rubin-vs-gb300-dsr1-v61": (
        "consistent",
        {
            "same_submitter": (
                "consistent", VR_OFFLINE / 679740,
                v61("NVIDIA", RACK), v61("NVIDIA", "VR-NVL72_VR-288GB_aarch64x72_TRT"),
            ),
            "same_submitter" + PER_ACC: (
                "consistent", (VR_OFFLINE / 72) / (75918.2 / 8),
                v61("NVIDIA", "GB300-NVL72_GB300-288GB_aarch64x8_TRT"),
                v61("NVIDIA", "VR-NVL72_VR-288GB_aarch64x72_TRT"),
            ),
        },
    ),
    "illustrative-vera-rubin-2x-gb300-v61": (
        "inconsistent",
        {
            "same_submitter": (
                "inconsistent", VR_OFFLINE / 679740,
                v61("NVIDIA", RACK), v61("NVIDIA", "VR-NVL72_VR-288GB_aarch64x72_TRT"),
            ),
            "best_of_any": (
                "inconsistent", VR_OFFLINE / 689961,
                v61("Nebius", RACK), v61("NVIDIA", "VR-NVL72_VR-288GB_aarch64x72_TRT"),
            ),
            "same_submitter" + PER_ACC: (
                "inconsistent", (VR_OFFLINE / 72) / (75918.2 / 8),
                v61("NVIDIA", "GB300-NVL72_GB300-288GB_aarch64x8_TRT"),
                v61("NVIDIA", "VR-NVL72_VR-288GB_aarch64x72_TRT"),
            ),
            "best_of_any" + PER_ACC: (
                "inconsistent", (VR_OFFLINE / 72) / (77031.7 / 8),
                v61("Oracle", "GB300-NVL72_GB300-288GB_aarch64x8_TRT"),
                v61("NVIDIA", "VR-NVL72_VR-288GB_aarch64x72_TRT"),
            ),
        },
    ),
    "illustrative-gb300-288-dsr1-absolute-v61": (
        "consistent",
        {
            "same_submitter": (
                "consistent", 2705130.0, None,
                v61("NVIDIA", "GB300-NVL72_GB300-288GB_aarch64x288_TRT"),
            ),
            "best_of_any": (
                "consistent", 2705130.0, None,
                v61("NVIDIA", "GB300-NVL72_GB300-288GB_aarch64x288_TRT"),
            ),
        },
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def claims():
    return load_claims()


@pytest.fixture(scope="module")
def evaluations(mirror_results: pl.DataFrame, claims) -> pl.DataFrame:
    tables = analyse(mirror_results)
    return evaluate_claims(
        claims,
        mirror_results.lazy(),
        tables.software_gains.lazy(),
        tables.generation_ratios.lazy(),
        tables.scaling.lazy(),
    )


@pytest.fixture(scope="module")
def verdicts(evaluations: pl.DataFrame) -> pl.DataFrame:
    return claim_verdicts(evaluations)


def reading(evaluations: pl.DataFrame, claim_id: str, label: str) -> dict:
    found = evaluations.filter(
        (pl.col("claim_id") == claim_id) & (pl.col("reading") == label)
    )
    assert found.height == 1, found
    return found.row(0, named=True)


def test_every_seeded_claim_is_pinned(claims, evaluations):
    assert [c.id for c in claims] == list(EXPECTED)
    assert evaluations.schema == pl.Schema(EVALUATION_SCHEMA)
    for claim_id, (_, readings) in EXPECTED.items():
        got = evaluations.filter(pl.col("claim_id") == claim_id)["reading"].to_list()
        assert got == list(readings), claim_id


@pytest.mark.parametrize("claim_id", list(EXPECTED))
def test_seeded_claim_verdict_value_and_cited_results(claim_id, evaluations, verdicts):
    overall, readings = EXPECTED[claim_id]
    assert verdicts.filter(pl.col("claim_id") == claim_id)["verdict"].item() == overall
    for label, (verdict, value, key_old, key_new) in readings.items():
        got = reading(evaluations, claim_id, label)
        assert got["verdict"] == verdict, (label, got["reason"])
        if value is None:
            assert got["value"] is None
        else:
            assert got["value"] == pytest.approx(value, rel=1e-9), label
        assert (got["result_key_old"], got["result_key_new"]) == (key_old, key_new)


def test_cited_results_exist_and_link_upstream(evaluations, mirror_results):
    keys = set(mirror_results["result_key"])
    cited = evaluations.filter(pl.col("verdict") != "not reproducible")
    for column in ("result_key_old", "result_key_new"):
        assert set(cited[column].drop_nulls()) <= keys
    urls = cited["result_url_new"].to_list()
    assert all(
        u.startswith("https://github.com/mlcommons/inference_results_v") for u in urls
    )


def test_the_headline_reasons_read_as_documented(evaluations):
    offline = reading(evaluations, "illustrative-gb300-dsr1-offline-v51-v60", "system")
    assert offline["reason"] == "consistent when rounded (1.538× rounds to 1.5×)"
    up_to = reading(evaluations, "illustrative-gb300-dsr1-up-to-v51-v60", "system")
    assert up_to["reason"] == (
        "maximum of 2 matching pairs (Offline, Server) is Server: consistent when "
        "rounded and when truncated (1.913× rounds and truncates to 1.9×)"
    )
    scaling = reading(
        evaluations, "illustrative-gb300-dsr1-scaling-v60", "same_submitter"
    )
    assert scaling["reason"] == "consistent: 96.37% ≥ 96%"
    missing = reading(
        evaluations, "illustrative-gb300-dsr1-scaling-576-v60", "same_submitter"
    )
    assert missing["reason"] == (
        "not reproducible: no result at that scale: NVIDIA deepseek-r1 Offline "
        "(closed) results on nvidia-gb300 in v6.0 have 72, 288 accelerators, not 576"
    )
    false = reading(
        evaluations, "illustrative-vera-rubin-2x-gb300-v61", "same_submitter"
    )
    assert false["reason"] == (
        "minimum of 2 matching pairs (Offline, Server) is Offline: inconsistent: "
        "1.741× < 2×"
    )


def test_caveats_on_the_real_data(evaluations, verdicts):
    per_gpu = reading(
        evaluations,
        "illustrative-gb300-dsr1-server-per-gpu-v51-v60",
        "accelerator" + PER_ACC,
    )
    assert per_gpu["caveats"] == [
        "holds only per accelerator: 72-accelerator result in v5.1 vs 8-accelerator "
        "result in v6.0 (the claim names 72 → 72)"
    ]
    assert verdicts.filter(
        pl.col("claim_id") == "illustrative-gb300-dsr1-server-per-gpu-v51-v60"
    )["is_per_accelerator_only"].item()
    rubin = reading(
        evaluations, "illustrative-vera-rubin-vs-gb300-dsr1-v61", "same_submitter"
    )
    assert rubin["caveats"] == [
        "one end is a preview submission (not yet available): v6.1 NVIDIA "
        "VR-NVL72_VR-288GB_aarch64x72_TRT",
        "one end is marked inferred upstream: v6.1 NVIDIA VR-NVL72_VR-288GB_aarch64x72_TRT",
    ]
    hardware = reading(
        evaluations, "illustrative-gb300-dsr1-offline-v51-v60", "hardware"
    )
    assert hardware["caveats"] == [
        "uses another submitter's result: Nebius in v6.0 (the claim names NVIDIA)"
    ]


def test_the_page_and_release_links_on_the_real_data(claims, evaluations, verdicts):
    page = render_claims_page(claims, evaluations, verdicts)
    for claim in claims:
        assert f"{{#claim-{claim.id}}}" in page
    assert (
        '<a href="https://github.com/mlcommons/inference_results_v6.0/tree/main/closed/'
        "NVIDIA/results/GB300-NVL72_GB300-288GB_aarch64x288_TRT/deepseek-r1/Offline"
    ) in page
    assert [c for c, _, _ in claims_for_release(verdicts, "v5.1")] == [
        "illustrative-gb300-dsr1-offline-v51-v60",
        "illustrative-gb300-dsr1-up-to-v51-v60",
        "illustrative-gb300-dsr1-server-per-gpu-v51-v60",
    ]
