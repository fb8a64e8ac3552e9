"""Claims evaluated on the real mirror (v4.1 to v6.1), no Dagster.

Two registries: the public one (``pipeline/registry/claims.toml``, the real vendor
claims of ``../shared/vendor-claims.md``) and the illustrative test fixture, whose
entries exercise every verdict path. Every entry is pinned to its verdict, its
computed value (written as the quotient of the published results it rests on, checked
by hand against the tables) and the result keys it cites, so a change in the
analysis, a registry or the rounding rules shows up here by name.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from pipeline.claims import EVALUATION_SCHEMA, claim_verdicts, evaluate_claims
from pipeline.registry.claims import load_claims
from pipeline.render.claim_notes import claims_for_release
from pipeline.render.claims_page import render_claims_page
from tests.analysed import analyse
from tests.conftest import MIRROR

ROOT = Path(__file__).resolve().parents[2]
ILLUSTRATIVE = ROOT / "tests" / "fixtures" / "claims_illustrative.toml"
VENDOR_CLAIMS = MIRROR.parent / "vendor-claims.md"

PER_ACC = " (normalised per accelerator)"
#: Not green: only a loose reading (across sizes or submitters) supports the claim.
LOOSE_ONLY = "holds only in a loose reading"
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
        LOOSE_ONLY,
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
    return load_claims(ILLUSTRATIVE)


@pytest.fixture(scope="module")
def tables(mirror_results: pl.DataFrame):
    return analyse(mirror_results)


def evaluate(claims, mirror_results: pl.DataFrame, tables) -> pl.DataFrame:
    return evaluate_claims(
        claims,
        mirror_results.lazy(),
        tables.software_gains.lazy(),
        tables.generation_ratios.lazy(),
        tables.scaling.lazy(),
    )


@pytest.fixture(scope="module")
def evaluations(mirror_results: pl.DataFrame, claims, tables) -> pl.DataFrame:
    return evaluate(claims, mirror_results, tables)


@pytest.fixture(scope="module")
def verdicts(evaluations: pl.DataFrame) -> pl.DataFrame:
    return claim_verdicts(evaluations)


def reading(evaluations: pl.DataFrame, claim_id: str, label: str) -> dict:
    found = evaluations.filter(
        (pl.col("claim_id") == claim_id) & (pl.col("reading") == label)
    )
    assert found.height == 1, found
    return found.row(0, named=True)


def test_every_illustrative_claim_is_pinned(claims, evaluations):
    assert [c.id for c in claims] == list(EXPECTED)
    assert evaluations.schema == pl.Schema(EVALUATION_SCHEMA)
    for claim_id, (_, readings) in EXPECTED.items():
        got = evaluations.filter(pl.col("claim_id") == claim_id)["reading"].to_list()
        assert got == list(readings), claim_id


@pytest.mark.parametrize("claim_id", list(EXPECTED))
def test_illustrative_claim_verdict_value_and_cited_results(
    claim_id, evaluations, verdicts
):
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
        "holds only in a loose reading: per accelerator, 72 vs 8 accelerators, "
        "different submitters; the claim names 72 → 72"
    ]
    assert verdicts.filter(
        pl.col("claim_id") == "illustrative-gb300-dsr1-server-per-gpu-v51-v60"
    )["is_per_accelerator_only"].item()
    rubin = reading(
        evaluations, "illustrative-vera-rubin-vs-gb300-dsr1-v61", "same_submitter"
    )
    # Upstream marks every Vera Rubin row inferred; a datacenter result was measured
    # (rounds.toml inferred_flag), so the only caveat is preview.
    assert rubin["caveats"] == [
        "one end is a preview submission (not yet available): v6.1 NVIDIA "
        "VR-NVL72_VR-288GB_aarch64x72_TRT",
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
        '<a href="https://github.com/mlcommons/inference_results_v6.0/tree/ab33b21/closed/'
        "NVIDIA/results/GB300-NVL72_GB300-288GB_aarch64x288_TRT/deepseek-r1/Offline"
    ) in page
    assert [c for c, _, _ in claims_for_release(verdicts, "v5.1")] == [
        "illustrative-gb300-dsr1-offline-v51-v60",
        "illustrative-gb300-dsr1-up-to-v51-v60",
        "illustrative-gb300-dsr1-server-per-gpu-v51-v60",
    ]


# --------------------------------------------------------------------------------------
# The public registry: the eight claims of ../shared/vendor-claims.md
# --------------------------------------------------------------------------------------

#: Registry entry -> the claim (row of vendor-claims.md) it checks. A sentence stating
#: several figures is one entry per figure (claim 3: three, claim 7: two).
CLAIM_OF = {
    "nvidia-gb300-vs-gb200-dsr1-45pct-v51": 1,
    "nvidia-gb300-vs-gb200-dsr1-1-4x-v51": 2,
    "nvidia-gb300-dsr1-server-per-gpu-v60": 3,
    "nvidia-gb300-dsr1-server-per-gpu-v51": 3,
    "nvidia-gb300-dsr1-server-2-77x-v51-v60": 3,
    "nvidia-gb300-288-dsr1-offline-v60": 4,
    "nvidia-dsr1-server-throughput-v60": 5,
    "nvidia-dsr1-interactive-v60": 6,
    "nvidia-gb300-llama405b-server-v51-v60": 7,
    "nvidia-gb300-llama405b-offline-v51-v60": 7,
    "nvidia-gb300-dsr1-server-2-7x-v51-v60": 8,
    # 9-11: NVIDIA's v6.0 table, one entry per benchmark x scenario cell; 12 restates it.
    "nvidia-v60-table-dsr1-offline": 9,
    "nvidia-v60-table-gptoss-offline": 9,
    "nvidia-v60-table-qwen3vl-offline": 9,
    "nvidia-v60-table-wan22-offline": 9,
    "nvidia-v60-table-dlrmv3-offline": 9,
    "nvidia-v60-table-dsr1-server": 10,
    "nvidia-v60-table-gptoss-server": 10,
    "nvidia-v60-table-qwen3vl-server": 10,
    "nvidia-v60-table-wan22-singlestream": 10,
    "nvidia-v60-table-dlrmv3-server": 10,
    "nvidia-v60-table-dsr1-interactive": 11,
    "nvidia-v60-table-gptoss-interactive": 11,
    "nvidia-v60-cloudnews-qwen3vl-offline": 12,
    "nvidia-v60-cloudnews-dlrmv3-offline": 12,
    "nvidia-v60-cloudnews-wan22-singlestream": 12,
}

# v5.1 keys: 0071 NVIDIA GB200 rack, 0072 NVIDIA GB300 rack, 0097 CoreWeave GB300 NVL8
# (preview). v6.0 keys: 0076 NVIDIA 288 GB300, 0078 NVIDIA GB300 rack, 0081 Nebius
# GB300 rack, 0082 Nebius GB300 8-GPU slice.
K51 = "5.1-{:04d}:{}:{}"
K60 = "6.0-{:04d}:{}:{}"
DS, L405 = "deepseek-r1", "llama3.1-405b"

#: claim id -> overall verdict, and per reading (verdict, value, old key, new key).
REAL: dict[str, tuple[str, dict[str, tuple]]] = {
    # 1: 420,659 / 289,712 = 1.4520 (Offline; Server is 209,328 / 167,578 = 1.249).
    "nvidia-gb300-vs-gb200-dsr1-45pct-v51": (
        "consistent",
        {
            "same_submitter": ("consistent", 420659 / 289712,
                               K51.format(71, DS, "Offline"),
                               K51.format(72, DS, "Offline")),
            "best_of_any": ("consistent", 420659 / 289712,
                            K51.format(71, DS, "Offline"),
                            K51.format(72, DS, "Offline")),
            "same_submitter" + PER_ACC: ("consistent", 420659 / 289712,
                                         K51.format(71, DS, "Offline"),
                                         K51.format(72, DS, "Offline")),
            # CoreWeave's 8-GPU preview is best per GPU: 1.4926 is not 1.45.
            "best_of_any" + PER_ACC: ("inconsistent", (48047 / 8) / (289712 / 72),
                                      K51.format(71, DS, "Offline"),
                                      K51.format(97, DS, "Offline")),
        },
    ),
    # 2: the same pairs; 1.452 truncates to 1.4 (and rounds to 1.5).
    "nvidia-gb300-vs-gb200-dsr1-1-4x-v51": (
        "consistent",
        {
            "same_submitter": ("consistent", 420659 / 289712,
                               K51.format(71, DS, "Offline"),
                               K51.format(72, DS, "Offline")),
            "best_of_any": ("consistent", 420659 / 289712,
                            K51.format(71, DS, "Offline"),
                            K51.format(72, DS, "Offline")),
            "same_submitter" + PER_ACC: ("consistent", 420659 / 289712,
                                         K51.format(71, DS, "Offline"),
                                         K51.format(72, DS, "Offline")),
            "best_of_any" + PER_ACC: ("consistent", (48047 / 8) / (289712 / 72),
                                      K51.format(71, DS, "Offline"),
                                      K51.format(97, DS, "Offline")),
        },
    ),
    # 3: 8,064 per GPU is Nebius's 8-GPU slice (64,510 / 8 = 8,063.75); NVIDIA's own
    # GB300 results are 5,561.6 (72 GPUs) and 5,399.7 (288 GPUs) per GPU.
    "nvidia-gb300-dsr1-server-per-gpu-v60": (
        LOOSE_ONLY,
        {
            "same_submitter": ("inconsistent", 1555110 / 288, None,
                               K60.format(76, DS, "Server")),
            "best_of_any": ("consistent", 64510 / 8, None,
                            K60.format(82, DS, "Server")),
        },
    ),
    # 3: 209,328 / 72 = 2,907.3, NVIDIA's rack in v5.1.
    "nvidia-gb300-dsr1-server-per-gpu-v51": (
        "consistent",
        {
            "same_submitter": ("consistent", 209328 / 72, None,
                               K51.format(72, DS, "Server")),
            "best_of_any": ("consistent", 209328 / 72, None,
                            K51.format(72, DS, "Server")),
        },
    ),
    # 3: 2.77× only per accelerator (8,063.75 / 2,907.33 = 2.7736); NVIDIA's own rack
    # gained 400,437 / 209,328 = 1.913.
    "nvidia-gb300-dsr1-server-2-77x-v51-v60": (
        LOOSE_ONLY,
        {
            "system": ("inconsistent", 400437 / 209328,
                       K51.format(72, DS, "Server"), K60.format(78, DS, "Server")),
            "hardware": ("inconsistent", 64510 / 22545.1,
                         K51.format(97, DS, "Server"), K60.format(82, DS, "Server")),
            "accelerator" + PER_ACC: ("consistent", (64510 / 8) / (209328 / 72),
                                      K51.format(72, DS, "Server"),
                                      K60.format(82, DS, "Server")),
        },
    ),
    # 4: 2,494,310 tokens/s at 288 GPUs, "2.49 million" to the nearest 10,000.
    "nvidia-gb300-288-dsr1-offline-v60": (
        "consistent",
        {
            "same_submitter": ("consistent", 2494310.0, None,
                               K60.format(76, DS, "Offline")),
            "best_of_any": ("consistent", 2494310.0, None,
                            K60.format(76, DS, "Offline")),
        },
    ),
    # 5: the best v6.0 Server result is 1,555,110; 2,494,310 is the Offline one.
    "nvidia-dsr1-server-throughput-v60": (
        "inconsistent",
        {
            "same_submitter": ("inconsistent", 42721.4, None,
                               K60.format(73, DS, "Server")),
            "best_of_any": ("inconsistent", 1555110.0, None,
                            K60.format(76, DS, "Server")),
        },
    ),
    # 6: NVIDIA's GB300 rack; its GB200 rack (240,318) also ran Interactive.
    "nvidia-dsr1-interactive-v60": (
        "consistent",
        {
            "same_submitter": ("inconsistent", 240318.0, None,
                               K60.format(75, DS, "Interactive")),
            "best_of_any": ("consistent", 250634.0, None,
                            K60.format(78, DS, "Interactive")),
        },
    ),
    # 7: NVIDIA's GB300 rack in both rounds, the only GB300 Llama 3.1 405B results.
    "nvidia-gb300-llama405b-server-v51-v60": (
        "consistent",
        {
            label: ("consistent", 18627.6 / 12248.4,
                    K51.format(72, L405, "Server"), K60.format(78, L405, "Server"))
            for label in ("system", "hardware", "accelerator" + PER_ACC)
        },
    ),
    "nvidia-gb300-llama405b-offline-v51-v60": (
        "consistent",
        {
            label: ("consistent", 19511.7 / 16104.1,
                    K51.format(72, L405, "Offline"), K60.format(78, L405, "Offline"))
            for label in ("system", "hardware", "accelerator" + PER_ACC)
        },
    ),
    # 8: 2.7× holds per accelerator (2.7736 truncates to 2.7); NVIDIA's own rack
    # gained 1.913; at equal counts the 72-GPU pair (Nebius's rack, 575,580 /
    # 209,328 = 2.750) agrees but the 8-GPU pair (2.861) does not.
    "nvidia-gb300-dsr1-server-2-7x-v51-v60": (
        LOOSE_ONLY,
        {
            "system": ("inconsistent", 400437 / 209328,
                       K51.format(72, DS, "Server"), K60.format(78, DS, "Server")),
            "hardware": ("inconsistent", 64510 / 22545.1,
                         K51.format(97, DS, "Server"), K60.format(82, DS, "Server")),
            "accelerator" + PER_ACC: ("consistent", (64510 / 8) / (209328 / 72),
                                      K51.format(72, DS, "Server"),
                                      K60.format(82, DS, "Server")),
        },
    ),
    # 9-12: each figure is the platform's best (best of any submitter on NVIDIA's
    # Blackwell chips); NVIDIA's own submissions match only DeepSeek-R1 at 288 GPUs,
    # and Wan 2.2's 21 s is GigaComputing's B300 system (20,898 ms rounds to 21,000).
    "nvidia-v60-table-dsr1-offline": (
        "consistent",
        {
            "same_submitter": ("consistent", 2494310.0, None,
                               K60.format(76, "deepseek-r1", "Offline")),
            "best_of_any": ("consistent", 2494310.0, None,
                            K60.format(76, "deepseek-r1", "Offline")),
        },
    ),
    "nvidia-v60-table-gptoss-offline": (
        LOOSE_ONLY,
        {
            "same_submitter": ("inconsistent", 103961.0, None,
                               K60.format(73, "gpt-oss-120b", "Offline")),
            "best_of_any": ("consistent", 1046150.0, None,
                            K60.format(81, "gpt-oss-120b", "Offline")),
        },
    ),
    "nvidia-v60-table-qwen3vl-offline": (
        LOOSE_ONLY,
        {
            "same_submitter": ("inconsistent", 43.7662, None,
                               K60.format(74, "qwen3-vl-235b-a22b", "Offline")),
            "best_of_any": ("consistent", 79.0373, None,
                            K60.format(94, "qwen3-vl-235b-a22b", "Offline")),
        },
    ),
    "nvidia-v60-table-wan22-offline": (
        "consistent",
        {
            "same_submitter": ("inconsistent", 0.0269817, None,
                               K60.format(74, "wan-2.2-t2v-a14b", "Offline")),
            "best_of_any": ("consistent", 0.0585234, None,
                            K60.format(73, "wan-2.2-t2v-a14b", "Offline")),
        },
    ),
    "nvidia-v60-table-dlrmv3-offline": (
        "consistent",
        {
            "same_submitter": ("inconsistent", 10547.4, None,
                               K60.format(72, "dlrm-v3", "Offline")),
            "best_of_any": ("consistent", 104637.0, None,
                            K60.format(75, "dlrm-v3", "Offline")),
        },
    ),
    "nvidia-v60-table-dsr1-server": (
        "consistent",
        {
            "same_submitter": ("consistent", 1555110.0, None,
                               K60.format(76, "deepseek-r1", "Server")),
            "best_of_any": ("consistent", 1555110.0, None,
                            K60.format(76, "deepseek-r1", "Server")),
        },
    ),
    "nvidia-v60-table-gptoss-server": (
        LOOSE_ONLY,
        {
            "same_submitter": ("inconsistent", 100328.0, None,
                               K60.format(73, "gpt-oss-120b", "Server")),
            "best_of_any": ("consistent", 1096770.0, None,
                            K60.format(81, "gpt-oss-120b", "Server")),
        },
    ),
    "nvidia-v60-table-qwen3vl-server": (
        LOOSE_ONLY,
        {
            "same_submitter": ("inconsistent", 38.0313, None,
                               K60.format(74, "qwen3-vl-235b-a22b", "Server")),
            "best_of_any": ("consistent", 67.8642, None,
                            K60.format(94, "qwen3-vl-235b-a22b", "Server")),
        },
    ),
    "nvidia-v60-table-wan22-singlestream": (
        LOOSE_ONLY,
        {
            "same_submitter": ("inconsistent", 40243.719116, None,
                               K60.format(74, "wan-2.2-t2v-a14b", "SingleStream")),
            "best_of_any": ("consistent", 20897.894239, None,
                            K60.format(39, "wan-2.2-t2v-a14b", "SingleStream")),
        },
    ),
    "nvidia-v60-table-dlrmv3-server": (
        "consistent",
        {
            "same_submitter": ("inconsistent", 10007.0, None,
                               K60.format(72, "dlrm-v3", "Server")),
            "best_of_any": ("consistent", 99996.8, None,
                            K60.format(75, "dlrm-v3", "Server")),
        },
    ),
    "nvidia-v60-table-dsr1-interactive": (
        "consistent",
        {
            "same_submitter": ("inconsistent", 240318.0, None,
                               K60.format(75, "deepseek-r1", "Interactive")),
            "best_of_any": ("consistent", 250634.0, None,
                            K60.format(78, "deepseek-r1", "Interactive")),
        },
    ),
    "nvidia-v60-table-gptoss-interactive": (
        "consistent",
        {
            "same_submitter": ("inconsistent", 624929.0, None,
                               K60.format(75, "gpt-oss-120b", "Interactive")),
            "best_of_any": ("consistent", 677199.0, None,
                            K60.format(78, "gpt-oss-120b", "Interactive")),
        },
    ),
    "nvidia-v60-cloudnews-qwen3vl-offline": (
        LOOSE_ONLY,
        {
            "same_submitter": ("inconsistent", 43.7662, None,
                               K60.format(74, "qwen3-vl-235b-a22b", "Offline")),
            "best_of_any": ("consistent", 79.0373, None,
                            K60.format(94, "qwen3-vl-235b-a22b", "Offline")),
        },
    ),
    "nvidia-v60-cloudnews-dlrmv3-offline": (
        "consistent",
        {
            "same_submitter": ("inconsistent", 10547.4, None,
                               K60.format(72, "dlrm-v3", "Offline")),
            "best_of_any": ("consistent", 104637.0, None,
                            K60.format(75, "dlrm-v3", "Offline")),
        },
    ),
    "nvidia-v60-cloudnews-wan22-singlestream": (
        LOOSE_ONLY,
        {
            "same_submitter": ("inconsistent", 40243.719116, None,
                               K60.format(74, "wan-2.2-t2v-a14b", "SingleStream")),
            "best_of_any": ("consistent", 20897.894239, None,
                            K60.format(39, "wan-2.2-t2v-a14b", "SingleStream")),
        },
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def real_claims():
    return load_claims()


@pytest.fixture(scope="module")
def real_evaluations(mirror_results, real_claims, tables) -> pl.DataFrame:
    return evaluate(real_claims, mirror_results, tables)


@pytest.fixture(scope="module")
def real_verdicts(real_evaluations: pl.DataFrame) -> pl.DataFrame:
    return claim_verdicts(real_evaluations)


def vendor_rows() -> dict[int, dict[str, str]]:
    """The table of ../shared/vendor-claims.md: number -> claimant, date, URL, quote."""
    if not VENDOR_CLAIMS.is_file():
        pytest.fail(f"the vendor claims list is missing at {VENDOR_CLAIMS}")
    rows = {}
    for line in VENDOR_CLAIMS.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 6 or not cells[0].isdigit():
            continue
        # A sentence ("...") or one row of a table ('table "...", row Offline: "..."').
        quote = re.match(r'^"(.+?)"(?: \(|$)', cells[5]) or re.search(
            r'row \w+: "(.+?)"', cells[5]
        )
        assert quote, line
        number = int(cells[0])
        rows[number] = {
            "claimant": cells[1],
            "date": cells[2],
            # "same page": the row above's.
            "source_url": rows[number - 1]["source_url"]
            if cells[4] == "same page"
            else cells[4],
            "quote": quote.group(1),
        }
    return rows


def test_the_public_registry_enters_every_listed_claim_verbatim(real_claims):
    rows = vendor_rows()
    assert sorted(rows) == list(range(1, 13))
    assert [c.id for c in real_claims] == list(CLAIM_OF)
    assert sorted(set(CLAIM_OF.values())) == sorted(rows)
    for claim in real_claims:
        row = rows[CLAIM_OF[claim.id]]
        assert claim.claimant == row["claimant"] == "NVIDIA", claim.id
        assert claim.date.isoformat() == row["date"], claim.id
        assert claim.source_url == row["source_url"], claim.id
        assert claim.quote == row["quote"], claim.id
        assert "illustrative" not in claim.claimant.lower()


def test_every_real_claim_is_pinned(real_claims, real_evaluations):
    assert list(REAL) == [c.id for c in real_claims]
    assert real_evaluations.schema == pl.Schema(EVALUATION_SCHEMA)
    for claim_id, (_, readings) in REAL.items():
        got = real_evaluations.filter(pl.col("claim_id") == claim_id)["reading"]
        assert got.to_list() == list(readings), claim_id


@pytest.mark.parametrize("claim_id", list(REAL))
def test_real_claim_verdict_value_and_cited_results(
    claim_id, real_evaluations, real_verdicts
):
    overall, readings = REAL[claim_id]
    got_overall = real_verdicts.filter(pl.col("claim_id") == claim_id)["verdict"]
    assert got_overall.item() == overall
    for label, (verdict, value, key_old, key_new) in readings.items():
        got = reading(real_evaluations, claim_id, label)
        assert got["verdict"] == verdict, (label, got["reason"])
        assert got["value"] == pytest.approx(value, rel=1e-9), label
        assert (got["result_key_old"], got["result_key_new"]) == (key_old, key_new)


def test_the_real_claims_reasons_name_the_numbers(real_evaluations, real_verdicts):
    claim8 = "nvidia-gb300-dsr1-server-2-7x-v51-v60"
    per_gpu = reading(real_evaluations, claim8, "accelerator" + PER_ACC)
    assert per_gpu["reason"] == (
        "consistent when truncated (2.774× truncates to 2.7×; it rounds to 2.8×)"
    )
    assert (per_gpu["grade"], per_gpu["mixes"]) == (
        "loose",
        ["per accelerator, 72 vs 8 accelerators", "different submitters"],
    )
    assert per_gpu["caveats"] == [
        "holds only in a loose reading: per accelerator, 72 vs 8 accelerators, "
        "different submitters",
        "uses another submitter's result: Nebius in v6.0 (the claim names NVIDIA)",
    ]
    assert reading(real_evaluations, claim8, "system")["reason"] == (
        "inconsistent: 1.913× neither rounds nor truncates to 2.7× (rounds to 1.9×, "
        "truncates to 1.9×)"
    )
    hardware = reading(real_evaluations, claim8, "hardware")
    assert (hardware["matches"], hardware["reason"]) == (
        2,
        "1 of 2 matching pairs (Server) disagree, e.g. Server: inconsistent: 2.861× "
        "neither rounds nor truncates to 2.7× (rounds to 2.9×, truncates to 2.8×)",
    )
    # NVIDIA's "2.77x, same chips" is not green: the same-system reading gives 1.91x;
    # only the per-accelerator reading across system sizes and submitters reaches it.
    verdict = real_verdicts.filter(pl.col("claim_id") == claim8).row(0, named=True)
    assert verdict["verdict"] == LOOSE_ONLY
    assert verdict["summary"] == (
        "holds only in a loose reading: accelerator (normalised per accelerator) "
        "(per accelerator, 72 vs 8 accelerators, different submitters); "
        "like-for-like: system inconsistent; hardware inconsistent"
    )
    per_gpu_v60 = reading(
        real_evaluations, "nvidia-gb300-dsr1-server-per-gpu-v60", "best_of_any"
    )
    assert per_gpu_v60["reason"] == (
        "consistent when rounded (8,063.8 rounds to 8,064; it truncates to 8,063)"
    )
    assert per_gpu_v60["caveats"] == [
        "holds only in a loose reading: another submitter's result (Nebius)",
        "uses another submitter's result: Nebius in v6.0 (the claim names NVIDIA)",
    ]
    assert per_gpu_v60["platform_new"] == "GB300-NVL72_GB300-288GB_aarch64x8_TRT"
    millions = reading(
        real_evaluations, "nvidia-gb300-288-dsr1-offline-v60", "same_submitter"
    )
    assert millions["reason"] == (
        "consistent when rounded and when truncated (2,494,310 rounds and truncates "
        "to 2,490,000)"
    )
    server = reading(
        real_evaluations, "nvidia-dsr1-server-throughput-v60", "best_of_any"
    )
    assert server["reason"] == (
        "inconsistent: 1,555,110.0 neither rounds nor truncates to 2,494,310 (rounds "
        "to 1,555,110, truncates to 1,555,110)"
    )
    assert server["platform_new"] == "GB300-NVL72_GB300-288GB_aarch64x288_TRT"
    forty_five = reading(
        real_evaluations, "nvidia-gb300-vs-gb200-dsr1-45pct-v51", "same_submitter"
    )
    assert forty_five["reason"] == (
        "maximum of 2 matching pairs (Offline, Server) is Offline: consistent when "
        "rounded and when truncated (1.4520× rounds and truncates to 1.45×)"
    )
    one_four = reading(
        real_evaluations, "nvidia-gb300-vs-gb200-dsr1-1-4x-v51", "same_submitter"
    )
    assert one_four["reason"] == (
        "maximum of 2 matching pairs (Offline, Server) is Offline: consistent when "
        "truncated (1.452× truncates to 1.4×; it rounds to 1.5×)"
    )


def test_the_claims_page_shows_the_real_claims_and_no_illustrative_one(
    real_claims, real_evaluations, real_verdicts
):
    page = render_claims_page(real_claims, real_evaluations, real_verdicts)
    assert "illustrative" not in page.lower()
    for claim_id, (overall, _) in REAL.items():
        card = page.split(f"{{#claim-{claim_id}}}", 1)[1].split("\n## ", 1)[0]
        slug = overall.replace(" ", "-")
        assert f'<span class="ledger-badge ledger-badge--{slug}">{overall}</span>' in (
            card
        )
    assert (
        '- **Source:** <a href="https://butlerscryptohelp.com/?p=18849">'
        "https&#58;//butlerscryptohelp.com/?p&#61;18849</a>"
    ) in page
    assert (
        "exactly 8,064 absolute result per accelerator · deepseek-r1 Server (closed) "
        "· v6.0 · nvidia-gb300"
    ) in page
    # The newest round's page lists no claim any more: none of the eight cites v6.1.
    assert claims_for_release(real_verdicts, "v6.1") == []
    assert [c for c, _, _ in claims_for_release(real_verdicts, "v5.1")] == [
        c for c in REAL if c not in (
            "nvidia-gb300-dsr1-server-per-gpu-v60",
            "nvidia-gb300-288-dsr1-offline-v60",
            "nvidia-dsr1-server-throughput-v60",
            "nvidia-dsr1-interactive-v60",
        ) and not c.startswith("nvidia-v60-")  # v6.0 only: claims 9-12
    ]  # fmt: skip
