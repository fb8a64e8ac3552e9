"""make lighthouse's judging: medians over runs, and the readers' targets."""

from __future__ import annotations

from benchmarks.lighthouse import medians, verdict


def test_medians_are_per_figure_over_the_runs() -> None:
    runs = [
        {"performance": 91, "total_blocking_time_ms": 250, "accessibility": 100},
        {"performance": 97, "total_blocking_time_ms": 120, "accessibility": 100},
        {"performance": 95, "total_blocking_time_ms": 180, "accessibility": 98},
    ]
    assert medians(runs) == {
        "performance": 95,
        "total_blocking_time_ms": 180,
        "accessibility": 100,
    }


def test_a_page_passes_only_when_every_target_holds() -> None:
    good = {"performance": 95, "total_blocking_time_ms": 200, "accessibility": 100}
    assert verdict(good) == "PASS"
    slow = {"performance": 71, "total_blocking_time_ms": 2386, "accessibility": 100}
    assert verdict(slow) == "FAIL (performance 71 < 95; TBT 2386 ms > 200)"
    assert verdict({**good, "accessibility": 96}) == "FAIL (accessibility 96 < 100)"
