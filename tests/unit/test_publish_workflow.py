"""The GitHub Pages workflow: what it must do for the published site to stay right.

actionlint (``make test``) checks that GitHub can run the file; these tests check
what it runs: the README's site command against upstream, the site URL from the
repository, the cache the pipeline really reads, and a deploy that only follows a
successful build, one run at a time.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pipeline import settings
from tests.conftest import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "publish.yml"


@pytest.fixture(scope="module")
def workflow() -> dict:
    # PyYAML reads the key `on` as True (YAML 1.1); GitHub reads it as "on".
    loaded = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    loaded["on"] = loaded.pop(True)
    return loaded


def _step(job: dict, uses: str) -> dict:
    (step,) = [s for s in job["steps"] if s.get("uses", "").startswith(uses + "@")]
    return step


def test_runs_on_a_schedule_and_on_demand(workflow: dict) -> None:
    assert workflow["on"]["schedule"][0]["cron"]
    assert "workflow_dispatch" in workflow["on"]


def test_builds_with_the_readme_command_against_upstream(workflow: dict) -> None:
    build = workflow["jobs"]["build"]
    runs = [s["run"] for s in build["steps"] if "run" in s]
    assert "make site" in runs
    assert "make site" in (ROOT / "README.md").read_text(encoding="utf-8")
    # No mirror: the Makefile falls back to upstream when ../shared is absent, and
    # no env of the workflow, the job or a step names another source.
    envs = [workflow.get("env", {}), build.get("env", {})]
    envs += [s.get("env", {}) for s in build["steps"]]
    assert not [e for e in envs if "MLPERF_SOURCE" in e]


def test_site_url_comes_from_the_pages_settings(workflow: dict) -> None:
    build = workflow["jobs"]["build"]
    pages = _step(build, "actions/configure-pages")
    (make,) = [s for s in build["steps"] if s.get("run") == "make site"]
    url = make["env"]["MLPERF_LEDGER_SITE_URL"]
    assert url == "${{ steps." + pages["id"] + ".outputs.base_url }}/"
    steps = build["steps"]
    assert steps.index(pages) < steps.index(make)


def test_restores_the_data_folder_and_the_git_clones(
    workflow: dict, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cache = _step(workflow["jobs"]["build"], "actions/cache")
    paths = cache["with"]["path"].split()
    assert "data" in paths  # the Makefile's data folder (MLPERF_DATA_DIR unset)
    # The folders the pipeline itself uses on a runner (HOME set, no XDG or
    # MLPERF_* variables): the workflow caches what settings.py reads.
    for name in ("MLPERF_CACHE_DIR", "MLPERF_GIT_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    cached = [Path(p.replace("~", str(tmp_path), 1)).resolve() for p in paths]
    assert settings.git_cache_dir().is_relative_to(
        cached[paths.index("~/.cache/mlperf-ledger")]
    )
    # A fresh key per run: actions/cache never overwrites a key, and saves only
    # after a successful run, restoring the newest earlier one by prefix.
    assert "github.run_id" in cache["with"]["key"]
    assert cache["with"]["key"].startswith(cache["with"]["restore-keys"].strip())


def test_deploys_with_the_pages_actions_only_after_a_successful_build(
    workflow: dict,
) -> None:
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    upload = _step(build, "actions/upload-pages-artifact")
    assert "steps.site.outputs.path" in upload["with"]["path"]
    assert deploy["needs"] == "build"
    assert "if" not in deploy  # default success(): a failed build deploys nothing
    _step(deploy, "actions/deploy-pages")
    assert deploy["environment"]["name"] == "github-pages"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    # The job that reads upstream data cannot publish.
    assert build["permissions"].get("pages") == "read"
    assert "id-token" not in build["permissions"]


def test_two_runs_never_publish_at_once(workflow: dict) -> None:
    assert workflow["concurrency"]["group"]
    assert workflow["concurrency"]["cancel-in-progress"] is False


def test_actions_are_pinned_by_commit(workflow: dict) -> None:
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            if "uses" in step:
                ref = step["uses"].split("@", 1)[1]
                assert len(ref) == 40 and int(ref, 16) >= 0, step["uses"]
