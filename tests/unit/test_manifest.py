from pathlib import Path

import pytest

from pipeline.manifest import (
    is_version,
    next_versions,
    release_for,
    reviewed_versions,
    unreviewed_note,
)
from pipeline.registry.releases import ManifestError, load_manifest, version_key


def test_manifest_lists_every_round_in_version_order() -> None:
    releases = load_manifest()
    versions = [r.version for r in releases]
    assert versions[0] == "v0.5" and versions[-1] == "v6.1"
    assert versions == sorted(versions, key=version_key)
    raw_only = [r.version for r in releases if not r.has_summary]
    assert raw_only == [
        "v0.5",
        "v0.7",
        "v1.0",
        "v1.1",
        "v2.0",
        "v2.1",
        "v3.0",
        "v3.1",
        "v4.0",
    ]
    v61 = release_for("v6.1", releases)
    assert (v61.summary_path, v61.summary_format) == ("summary.json", "checker")


def test_versions_sort_numerically_and_have_two_successors() -> None:
    assert version_key("v10.0") > version_key("v9.1")
    assert next_versions("v6.1") == ["v6.2", "v7.0"]
    with pytest.raises(ManifestError, match="'6.1' is not of the form vX.Y"):
        version_key("6.1")


def test_a_round_not_in_the_manifest_gets_defaults() -> None:
    found = release_for("v6.2", load_manifest())
    assert found.repository == "mlcommons/inference_results_v6.2"
    assert found.summary_format is None  # any known layout is tried


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            'version = "v1.0"\nsummary_path = ""',
            "releases.toml: [release 1 (v1.0)] repository: expected a non-empty "
            "string, got nothing",
        ),
        (
            'version = "v7.0"\nrepository = "m/r"\nsummary_path = "s.json"\n'
            'summary_format = "csv"',
            "releases.toml: [release 1 (v7.0)] summary_format: expected one of "
            "'final_report', 'checker', got 'csv'",
        ),
        (
            'version = "7.0"\nrepository = "m/r"\nsummary_path = ""',
            "releases.toml: [release 1 (7.0)] version: expected a round vX.Y, "
            "got '7.0'",
        ),
        (
            'version = "v7.0"\nrepository = "m/r"\nsummary_path = ""\n'
            'published_date = "soon"',
            "releases.toml: [release 1 (v7.0)] published_date: expected a date "
            "(YYYY-MM-DD), got 'soon'",
        ),
        (
            'version = "v7.0"\nrepository = "m/r"\nsummary_path = ""\n'
            'ingest = ["summary"]',
            "releases.toml: [release 1 (v7.0)] ingest: names 'summary' but "
            "summary_path is empty",
        ),
        (
            'version = "v7.0"\nrepository = "m/r"\nsummary_path = ""\n'
            'date_approximate = "yes"',
            "releases.toml: [release 1 (v7.0)] date_approximate: expected true or "
            "false, got 'yes'",
        ),
    ],
)
def test_malformed_entries_are_named(tmp_path: Path, entry: str, message: str) -> None:
    path = tmp_path / "releases.toml"
    path.write_text(f"[[release]]\n{entry}\n")
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    assert str(caught.value) == message


@pytest.mark.parametrize("text", ["v6.0\n", "v6.0 ", "\nv6.0", "v\u0666.0", "v6.0.1"])
def test_versions_match_in_full_and_in_ascii(text: str) -> None:
    # re.match with "$" let "v6.0\n" through: a phantom partition and file name.
    with pytest.raises(ManifestError) as error:
        version_key(text)
    assert str(error.value) == f"release version {text!r} is not of the form vX.Y"
    assert not is_version(text)


def test_only_rounds_in_the_manifest_count_as_reviewed() -> None:
    assert release_for("v6.1").reviewed is True
    assert release_for("v9.9").reviewed is False
    assert "v6.1" in reviewed_versions() and "v9.9" not in reviewed_versions()
    assert unreviewed_note("v9.9") == (
        "v9.9 is not reviewed in releases.toml: kept out of the combined table and "
        "site until reviewed"
    )
