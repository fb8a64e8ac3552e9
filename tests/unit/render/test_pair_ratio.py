"""Pair tables at equal footing: a per-accelerator pair of two sizes says so.

The numbers are v6.1's Qwen3-VL Offline results of NVIDIA's 8-GPU B300 server
(129.358392 samples/s) and its 72-GPU GB300 rack (1,304.985263 samples/s).
"""

from __future__ import annotations

from pipeline.render.pair_views import pair_cells
from tests.unit.render.conftest import pair, pairs, result

B300 = result(
    release="v6.1", result_id=None, benchmark="qwen3-vl-235b-a22b",
    result_key="v6.1:closed/NVIDIA/B300-SXM-270GBx8_TRT/qwen3-vl-235b-a22b/Offline",
    result_value=129.358392, result_unit="Samples/s", total_accelerators=8,
    result_per_accelerator=129.358392 / 8, accelerator_name="NVIDIA B300-SXM-270GB",
)  # fmt: skip
GB300 = B300 | {
    "result_key": B300["result_key"].replace("B300-SXM-270GBx8", "GB300-NVL72"),
    "result_value": 1304.985263,
    "total_accelerators": 72,
    "result_per_accelerator": 1304.985263 / 72,
    "accelerator_name": "NVIDIA GB300",
}


def _ratio(old: dict, new: dict, **kw: object) -> str:
    frame = pairs(pair(old, new, **kw))
    return pair_cells(frame)["c_ratio"].struct.field("__html__").item()


def test_two_sizes_lead_with_per_accelerator_and_give_the_total_beside() -> None:
    per_chip = (1304.985263 / 72) / (129.358392 / 8)
    cell = _ratio(
        B300, GB300, kind="generation_ratio", identity_level="best_of_any",
        is_per_accelerator=True, ratio=per_chip,
    )  # fmt: skip
    assert cell == (
        "1.12× <small>per accelerator</small><br>"
        "<small>total (8 vs 72 accelerators): 10.09×</small>"
    )


def test_latency_totals_count_the_lower_result_as_better() -> None:
    slow = B300 | {"result_value": 20.0, "is_higher_better": False}
    fast = GB300 | {"result_value": 10.0, "is_higher_better": False}
    cell = _ratio(slow, fast, is_per_accelerator=True, ratio=3.0)
    assert cell.endswith("total (8 vs 72 accelerators): 2.00×</small>")


def test_one_size_or_a_total_pair_shows_its_one_ratio() -> None:
    same = GB300 | {"total_accelerators": 8, "result_value": 140.0}
    assert _ratio(B300, same, is_per_accelerator=True, ratio=1.0823) == "1.08×"
    # Scaling pairs compare totals (their efficiency is the per-chip reading).
    assert _ratio(B300, GB300, kind="scaling", ratio=10.088) == "10.09×"
