"""Issue 56 D: how a data folder's source is recorded, compared and switched."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.origin import OtherSource, claim, identity, recorded
from pipeline.transform.corrections import switched_source


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("http://user:pass@host/m/", "http://user:***@host/m"),
        ("https://TOKEN@github.com/a", "https://***@github.com/a"),
        ("git+https://github.com", "git+https://github.com"),
    ],
)
def test_a_url_source_is_recorded_without_credentials_or_trailing_slash(
    given: str, kept: str
) -> None:
    assert identity(given) == kept


def test_a_folder_source_is_recorded_by_its_resolved_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mirror").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "mirror")
    monkeypatch.chdir(tmp_path)
    assert identity("mirror") == identity("link/") == str(tmp_path / "mirror")


def test_a_rotated_token_is_the_same_source(tmp_path: Path) -> None:
    claim(tmp_path, "https://OLD@host/m")
    assert claim(tmp_path, "https://NEW@host/m") == "https://***@host/m"


def test_another_source_is_refused_unless_switched(tmp_path: Path) -> None:
    claim(tmp_path, "http://a/m")
    with pytest.raises(OtherSource, match=r"built from the source http://a/m; "):
        claim(tmp_path, "http://b/m")
    assert recorded(tmp_path) == "http://a/m"
    claim(tmp_path, "http://b/m", switch=True)
    assert recorded(tmp_path) == "http://b/m"


def test_only_two_named_different_sources_are_a_switch() -> None:
    assert switched_source({"source": "a"}, {"source": "b"})
    assert not switched_source({"source": "a"}, {"source": "a"})
    assert not switched_source({}, {"source": "a"})  # older lines name none
