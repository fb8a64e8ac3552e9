"""One data folder, one source (issue 56 D).

A data folder built from the mirror and then read from another source would record
every difference between the two as an upstream correction, for good. The second
source is refused before any work, naming both and the way out; with
``--switch-source`` it is read, and what differs is not a correction, while a real
change of the new source afterwards still is.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from pipeline.cli import main
from pipeline.publish import site_tree_digest
from tests.conftest import MIRROR, MIRROR_ALT

ROUND = "inference_results_v6.1"
OLD = (MIRROR / ROUND / "summary.json").read_bytes()
NEW = (MIRROR_ALT / ROUND / "summary.json").read_bytes()


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for name, content in (("mirror", OLD), ("copy", NEW)):
        (tmp_path / name / ROUND).mkdir(parents=True)
        (tmp_path / name / ROUND / "summary.json").write_bytes(content)
    work = tmp_path / "work"
    for name, value in {
        "MLPERF_SOURCE": str(tmp_path / "mirror"),
        "MLPERF_DATA_DIR": str(work / "data"),
        "DAGSTER_HOME": str(work / "data" / "dagster_home"),
        "MLPERF_BUILD_DIR": str(work / "build"),
    }.items():
        monkeypatch.setenv(name, value)
    yield tmp_path


def _corrections(data: Path) -> pl.DataFrame:
    return pl.read_parquet(data / "assets" / "out_mlperf__corrections" / "_.parquet")


def test_a_data_folder_is_read_from_the_source_it_was_built_from(
    world: Path, capsys: pytest.CaptureFixture
) -> None:
    data = world / "work" / "data"
    site = world / "work" / "build" / "site"
    mirror, copy = world / "mirror", world / "copy"
    assert main(["site"]) == 0
    assert json.loads((data / "source.json").read_text())["source"] == str(mirror)
    published = site_tree_digest(site.resolve())
    capsys.readouterr()

    # Another source: refused before any work, both named, and the way out.
    assert main(["update", "--source", str(copy)]) == 2
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err.splitlines() == [
        f"error: the data folder {data} was built from the source {mirror}; this "
        f"command reads {copy}. One data folder reads one source, or every "
        "difference between the two would be recorded as an upstream correction. "
        f"Read {mirror} again, give another data folder (--data-dir), or pass "
        f"--switch-source to read {copy} from now on (its differences are then not "
        "counted as corrections)"
    ]
    assert site_tree_digest(site.resolve()) == published
    assert json.loads((data / "source.json").read_text())["source"] == str(mirror)

    # Switched on purpose: read, published, and no correction invented.
    assert main(["update", "--source", str(copy), "--switch-source"]) == 0
    assert "cross-release tables and site: rebuilt" in capsys.readouterr().out
    assert json.loads((data / "source.json").read_text()) == {
        "recorded_at": json.loads((data / "source.json").read_text())["recorded_at"],
        "source": str(copy),
        "switched_from": str(mirror),
    }
    page = (site / "generated" / "releases" / "v6.1.html").read_text()
    assert "NVIDIA VeraRubin NVL72" in page
    assert _corrections(data).is_empty()
    assert "corrected upstream" not in (site / "generated" / "feed.xml").read_text()

    # The folder now belongs to the copy: the first source is the other one.
    assert main(["update", "--source", str(mirror)]) == 2
    assert f"was built from the source {copy}; this command reads {mirror}." in (
        capsys.readouterr().err
    )

    # A real change of the new source is still a correction.
    (copy / ROUND / "summary.json").write_bytes(OLD)
    assert main(["update", "--source", str(copy)]) == 0
    corrections = _corrections(data)
    assert corrections["release"].unique().to_list() == ["v6.1"]
    assert corrections["result_key"].n_unique() == 6
    assert "v6.1 corrected upstream" in (site / "generated" / "feed.xml").read_text()
