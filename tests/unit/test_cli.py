from pathlib import Path

import polars as pl
import pytest

from pipeline.analysis.pairs import PAIR_SCHEMA
from pipeline.cli import main


@pytest.fixture(autouse=True)
def _restore_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # main() exports --data-dir/--source as environment variables for the resources;
    # recording them here makes monkeypatch put the originals back afterwards.
    for name in ("MLPERF_DATA_DIR", "MLPERF_SOURCE"):
        monkeypatch.delenv(name, raising=False)


def test_bad_release_version_is_a_usage_error(capsys: pytest.CaptureFixture) -> None:
    assert main(["ingest", "--release", "6.1"]) == 2
    assert capsys.readouterr().err == (
        "error: release version '6.1' is not of the form vX.Y\n"
    )


def test_gains_before_any_build_says_what_to_run(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert main(["gains", "--data-dir", str(tmp_path)]) == 1
    assert (
        "out_mlperf__software_gains has not been built yet" in capsys.readouterr().err
    )


def test_gains_top_n_cites_both_ends(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    row = dict.fromkeys(PAIR_SCHEMA) | {
        "identity_level": "system",
        "benchmark": "deepseek-r1",
        "scenario": "Offline",
        "division": "closed",
        "release_old": "v5.1",
        "release_new": "v6.0",
        "platform_old": "GB300-NVL72",
        "platform_new": "GB300-NVL72",
        "total_accelerators_old": 72,
        "total_accelerators_new": 72,
        "result_key_old": "5.1-0072:deepseek-r1:Offline",
        "result_key_new": "6.0-0078:deepseek-r1:Offline",
        "ratio": 647076 / 420659,
    }
    other = row | {"release_new": "v6.1", "ratio": 9.0}
    folder = tmp_path / "assets" / "out_mlperf__software_gains"
    folder.mkdir(parents=True)
    pl.DataFrame([row, other], schema=PAIR_SCHEMA).write_parquet(folder / "_.parquet")
    assert main(["gains", "--data-dir", str(tmp_path), "--release", "v6.0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "software-only gains (derived, unofficial; not MLPerf results)"
    assert len(out) == 3  # header line, column names, one row (v6.1 filtered out)
    assert "1.538" in out[2]
    assert "5.1-0072:deepseek-r1:Offline -> 6.0-0078:deepseek-r1:Offline" in out[2]
    assert "v5.1 GB300-NVL72 (72 chips)" in out[2]


def test_top_n_leaves_out_flagged_pairs_unless_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    base = dict.fromkeys(PAIR_SCHEMA) | {
        "identity_level": "system", "benchmark": "yolo-95", "scenario": "Offline",
        "division": "closed", "release_old": "v6.0", "release_new": "v6.1",
        "platform_old": "GB10", "platform_new": "GB10", "total_accelerators_old": 1,
        "total_accelerators_new": 1, "result_key_old": "a", "result_key_new": "b",
    }  # fmt: skip
    rows = [
        base | {"ratio": 1.2, "flags": []},
        base | {"ratio": 46.5, "flags": ["large_software_gain", "outlier_end"],
                "result_key_new": "c"},
    ]  # fmt: skip
    folder = tmp_path / "assets" / "out_mlperf__software_gains"
    folder.mkdir(parents=True)
    pl.DataFrame(rows, schema=PAIR_SCHEMA).write_parquet(folder / "_.parquet")
    assert main(["gains", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "1.2" in out and "46.5" not in out
    assert main(["gains", "--data-dir", str(tmp_path), "--include-flagged"]) == 0
    out = capsys.readouterr().out
    assert "46.5" in out and "large_software_gain, outlier_end" in out
