"""State only from facts: a typo or a lying server leaves no fake release behind."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipeline import runner
from pipeline.cli import main
from pipeline.discovery import KNOWN_FILE
from pipeline.forget import forget
from pipeline.registry.releases import load_manifest
from pipeline.update import evaluate_discovery, update
from tests.httpserver import FaultyServer

V61 = "inference_results_v6.1"


@pytest.fixture
def world(mirror: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    source = tmp_path / "source"
    (source / V61).mkdir(parents=True)
    shutil.copy(mirror / V61 / "summary.json", source / V61 / "summary.json")
    data = tmp_path / "data"
    monkeypatch.setenv("MLPERF_SOURCE", str(source))
    monkeypatch.setenv("MLPERF_DATA_DIR", str(data))
    monkeypatch.setenv("DAGSTER_HOME", str(data / "dagster_home"))
    monkeypatch.setenv("MLPERF_BUILD_DIR", str(tmp_path / "build"))
    return {"source": source, "data": data, "instance": runner.get_instance()}


def known(world: dict) -> list[str]:
    return json.loads((world["data"] / KNOWN_FILE).read_text())


def test_a_typo_release_leaves_no_trace_and_discovery_still_finds_the_next(
    world: dict,
) -> None:
    lines: list[str] = []
    runner.ingest(world["instance"], ["v6.1", "v99.99"], progress=lines.append)
    assert "v99.99" not in world["instance"].get_dynamic_partitions("release")
    assert "v99.99" not in known(world)
    assert (
        "v99.99: no valid file in the source and not listed in releases.toml: not "
        "kept as a release (no trace left)"
    ) in lines
    # The next real round appears upstream: found from v6.1, not from the typo.
    (world["source"] / "inference_results_v6.2").mkdir()
    shutil.copy(
        world["source"] / V61 / "summary.json",
        world["source"] / "inference_results_v6.2" / "summary.json",
    )
    tick = evaluate_discovery(world["instance"])
    assert [r.partition_key for r in tick.run_requests] == ["v6.2"]


def test_a_server_answering_200_for_everything_registers_no_fake_round(
    world: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FaultyServer(world["source"]) as server:
        server.html_for_missing = True
        monkeypatch.setenv("MLPERF_SOURCE", server.url)
        runner.ingest(world["instance"], ["v6.1"], progress=print)
        for _ in range(2):  # every tick, not only the first
            lines: list[str] = []
            update(world["instance"], progress=lines.append)
            # No error page is run, and no round gets a partition without a run.
            assert lines[-1] == "nothing new or changed upstream: no run requested"
    listed = {r.version for r in load_manifest()}
    assert world["instance"].get_dynamic_partitions("release") == ["v6.1"]
    assert set(known(world)) == listed


def test_forget_says_what_it_removes(world: dict, capsys) -> None:
    runner.ingest(world["instance"], ["v6.1"], progress=print)
    capsys.readouterr()
    assert main(["forget", "v6.1"]) == 0
    out = capsys.readouterr().out.splitlines()
    data = world["data"]
    assert f"v6.1: removed {data / 'raw' / 'v6.1'}" in out
    assert (
        f"v6.1: removed {data / 'assets' / 'core_mlperf__results' / 'v6.1.parquet'}"
        in out
    )
    assert out[-1] == "v6.1: listed in releases.toml, so its partition stays"
    assert not (data / "raw" / "v6.1").exists()
    assert main(["forget", "v6.1"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "v6.1: listed in releases.toml, so its partition stays"
    )


def test_forget_drops_only_its_own_rounds_cursor_entries(world: dict) -> None:
    import json

    from pipeline.discovery import CURSOR_FILE

    cursor = world["data"] / CURSOR_FILE
    cursor.parent.mkdir(parents=True, exist_ok=True)
    repo = "https://github.com/mlcommons/inference_results_v6.1"
    cursor.write_text(json.dumps({
        f"{repo}/summary.json": {"etag": "a"},
        f"git+{repo}.git": {"commit": "b"},
        f"{repo}0/summary.json": {"etag": "c"},  # v6.10 is another round
    }))  # fmt: skip
    forget(world["instance"], "v6.1", progress=lambda _: None)
    assert json.loads(cursor.read_text()) == {f"{repo}0/summary.json": {"etag": "c"}}
