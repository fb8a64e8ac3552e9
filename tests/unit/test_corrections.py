import json

from pipeline.transform.corrections import diff_snapshots
from tests.unit.test_results_normalise import CHECKER


def diff(old: dict, new: dict):
    return diff_snapshots(
        json.dumps(old).encode(),
        json.dumps(new).encode(),
        release="v6.1",
        repository="mlcommons/inference_results_v6.1",
        path="summary.json",
        old_sha256="aaa",
        new_sha256="bbb",
        seen_at="2026-11-29T00:00:00+00:00",
    )


OTHER = CHECKER | {"Platform": "other", "Scenario": "Offline", "Units": "Tokens/s"}
KEY = (
    "v6.1:closed/NVIDIA/GB300-NVL72_GB300-288GB_aarch64x72_TRT/llama3.1-8b/SingleStream"
)


def test_changed_value_is_listed_with_old_and_new() -> None:
    corrected = CHECKER | {"Result": 1.25, "notes": "re-run"}
    table = diff({"0": CHECKER | {"notes": ""}}, {"0": corrected})
    assert table.select(
        "result_key", "change", "field", "old_value", "new_value"
    ).rows() == [
        (KEY, "changed", "Result", "1.5", "1.25"),
        (KEY, "changed", "notes", "", "re-run"),
    ]
    assert table["old_sha256"].unique().to_list() == ["aaa"]


def test_records_matched_by_key_not_position() -> None:
    table = diff({"0": CHECKER, "1": OTHER}, {"0": OTHER, "1": CHECKER})
    assert table.is_empty()


def test_added_and_removed_records() -> None:
    table = diff({"0": CHECKER}, {"0": OTHER})
    assert sorted(table.select("change", "result_key").rows()) == [
        ("added", "v6.1:closed/NVIDIA/other/llama3.1-8b/Offline"),
        ("removed", KEY),
    ]
