"""Releases index: every round with its status, every snapshot with its upstream address."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import polars as pl
import pytest

from pipeline.render.pages import render_site
from pipeline.render.site_data import SNAPSHOT_SCHEMA
from tests.unit.render.conftest import unlabelled
from tests.unit.render.rounds_data import (
    H100_V21,
    H100_V41,
    H100_V51,
    site_data_of,
)

#: Builds a site, runs a subprocess or holds real locks: left out of test-fast.
pytestmark = pytest.mark.slow

#: Where a test mirror lives on the build machine: must never reach the page.
MIRROR = "/tmp/pytest-of-root/pytest-9/mirror0/mlperf-mirror"
V41_SHA = "8ec7a5b032f7d51c57de04bc04b7e9c94bdc8cd707ab4f4b84f921263e38f51a"


def _snapshot(release: str, path: str, url: str, sha256: str) -> dict:
    return {
        "release": release,
        "path": path,
        "url": url,
        "sha256": sha256,
        "bytes": 100,
        "fetched_at": "2026-01-02T03:04:05+00:00",
        "rows": 1,
        "rejected": 0,
        "checks": "",
    }


SNAPSHOTS = pl.DataFrame(
    [
        _snapshot("v2.1", "tree.json", f"{MIRROR}/inference_results_v2.1", "21" * 32),
        _snapshot(
            "v4.1",
            "summary_results.json",
            f"{MIRROR}/inference_results_v4.1/summary_results.json",
            V41_SHA,
        ),
        _snapshot(
            "v5.1",
            "summary_results.json",
            "http://127.0.0.1:8000/inference_results_v5.1/summary_results.json",
            "51" * 32,
        ),
        # Read, but not one row came of it.
        _snapshot(
            "v6.1",
            "summary.json",
            f"{MIRROR}/inference_results_v6.1/summary.json",
            "61" * 32,
        ),
    ],
    schema=SNAPSHOT_SCHEMA,
)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> str:
    data = dataclasses.replace(
        site_data_of(H100_V21, H100_V41, H100_V51), snapshots=SNAPSHOTS
    )
    out = tmp_path_factory.mktemp("index") / "generated"
    render_site(data, out, bundle=False)
    return (out / "releases" / "index.md").read_text()


def _repo(version: str) -> str:
    name = f"inference_results_{version}"
    return (
        f'<a href="https://github.com/mlcommons/{name}">'
        f"{name.replace('_', '&#95;')}</a>"
    )


def test_every_round_is_listed_with_its_status(index: str) -> None:
    rows = [line for line in unlabelled(index).splitlines() if line.startswith("| ")]
    rows = rows[1:]
    assert [row.split(" | ")[0].lstrip("| ") for row in rows] == [
        "v6.1", "v6.0", "[v5.1](v5.1.md)", "v5.0", "[v4.1](v4.1.md)", "v4.0",
        "v3.1", "v3.0", "[v2.1](v2.1.md)", "v2.0", "v1.1", "v1.0", "v0.7", "v0.5",
    ]  # fmt: skip
    assert (
        f"| v6.1 | 2026-09-01 | not ingested | {_repo('v6.1')} | — | — | — | — |"
        in rows
    )
    assert (
        f"| v5.0 | 2025-04-02 | not in source | {_repo('v5.0')} | — | — | — | — |"
        in rows
    )
    assert (
        f"| [v4.1](v4.1.md) | 2024-08-28 | summary file | {_repo('v4.1')} | "
        "1 | 1 | 1 | 1 |"
    ) in rows
    assert (
        f"| [v2.1](v2.1.md) | 2022-09-08 | raw tree only | {_repo('v2.1')} | "
        "1 | 1 | 1 | 1 |"
    ) in rows
    # The jumps between rounds with results are spelled out.
    assert (
        "Steps that are not consecutive: v2.1 → v4.1 skips v3.0, v3.1, v4.0&#58; "
        "not in source; v4.1 → v5.1 skips v5.0&#58; not in source."
    ) in index


def test_every_cell_of_the_rounds_table_names_its_column(index: str) -> None:
    # On a phone each row is a block and each cell says which column it is.
    table = index.split("## Snapshots read by this build")[0]
    header, *rows = [line for line in table.splitlines() if line.startswith("| ")]
    columns = header.strip("| ").split(" | ")
    assert columns[0] == "Release" and columns[-1] == "Accelerator types"
    assert len(rows) == 14
    for row in rows:
        assert re.findall(r'(?:^|\| )<span data-label="([^"]*)"></span>', row) == (
            columns
        ), row
    assert (
        '| <span data-label="Release"></span>[v4.1](v4.1.md) | '
        '<span data-label="Published"></span>2024-08-28 |'
    ) in table


def _snapshot_rows(index: str) -> dict[str, list[str]]:
    table = unlabelled(index).split("## Snapshots read by this build")[1]
    rows = re.findall(r"<tr>(<td>.*?)</tr>", table)
    cells = [re.findall(r"<td>(.*?)</td>", row) for row in rows]
    return {row[0]: row[1:] for row in cells}


def test_snapshots_link_upstream_with_the_commit_and_name_the_mirror_as_a_note(
    index: str,
) -> None:
    rows = _snapshot_rows(index)
    assert list(rows) == ["v2.1", "v4.1", "v5.1", "v6.1"]
    assert rows["v2.1"][:2] == [
        '<a href="https://github.com/mlcommons/inference_results_v2.1/tree/91f7859b">'
        "raw submission tree</a>",
        "<code>91f7859b</code><br><small>stated by the mirror, not checked file by "
        "file &#40;mlperf-mirror/README.md&#58; &quot;mlcommons/inference&#95;results"
        "&#95;v2.1, commit 91f7859b&quot;&#41;</small>",
    ]
    assert rows["v2.1"][3] == (
        "<small>local mirror&#58; inference&#95;results&#95;v2.1/</small>"
    )
    assert rows["v4.1"][0] == (
        '<a href="https://github.com/mlcommons/inference_results_v4.1/blob/4a0c8741/'
        'summary_results.json">summary&#95;results.json</a>'
    )
    assert rows["v4.1"][1].startswith(
        "<code>4a0c8741</code><br><small>sha256 matches the file at this commit"
    )
    assert rows["v5.1"][:2] == [
        '<a href="https://github.com/mlcommons/inference_results_v5.1/blob/HEAD/'
        'summary_results.json">summary&#95;results.json</a>',
        "not recorded<br><small>not recorded&#58; these bytes are not the file at "
        "965182b0</small>",
    ]
    assert rows["v5.1"][3] == (
        "<small>HTTP mirror&#58; http&#58;//127.0.0.1&#58;8000/inference&#95;results"
        "&#95;v5.1/summary&#95;results.json</small>"
    )
    # Every link in the table goes upstream; the build machine's folder is nowhere.
    table = index.split("## Snapshots read by this build")[1]
    hrefs = re.findall(r'href="([^"]*)"', table)
    assert len(hrefs) == 4
    assert all(h.startswith("https://github.com/mlcommons/") for h in hrefs)
    assert "/tmp" not in index and "mlperf-mirror/inference" not in index


def test_audit_page_links_snapshots_upstream_not_to_the_mirror(tmp_path: Path) -> None:
    data = dataclasses.replace(
        site_data_of(H100_V21, H100_V41, H100_V51), snapshots=SNAPSHOTS
    )
    out = tmp_path / "generated"
    render_site(data, out, bundle=False)
    audit = unlabelled((out / "audit.md").read_text())
    row = next(line for line in audit.splitlines() if line.startswith("<tr><td>v4.1"))
    assert row.startswith(
        "<tr><td>v4.1</td><td>"
        '<a href="https://github.com/mlcommons/inference_results_v4.1/blob/4a0c8741/'
        'summary_results.json" title="local mirror&#58; inference&#95;results&#95;v4.1/'
        'summary&#95;results.json">summary&#95;results.json</a></td>'
        '<td><code title="4a0c8741">4a0c8741</code></td>'
    )
    hrefs = re.findall(r'href="([^"]*)"', audit)
    assert not [h for h in hrefs if "127.0.0.1" in h or h.startswith("/")]
    assert MIRROR not in audit and "/tmp" not in audit
