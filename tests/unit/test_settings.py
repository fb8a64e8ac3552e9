"""Configuration is input too: every variable that reaches a page, a path or a
command line is checked where it is read, and named when refused (issue 33)."""

from __future__ import annotations

import pytest

from pipeline import settings
from pipeline.settings import SettingError, check_folder, check_url

SCRIPT = 'https://ex.com/"><script>alert(document.domain)</script>'
#: What every refused URL character's message ends with.
ALLOWED = (
    "is not allowed in a URL (expected an absolute http:// or https:// URL without "
    "quotes, angle brackets, whitespace or control characters; percent-encode others)"
)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (SCRIPT, f"MLPERF_LEDGER_SITE_URL {SCRIPT!r}: character 16 ('\"') {ALLOWED}"),
        ("https://ex.com/a b", "MLPERF_LEDGER_SITE_URL 'https://ex.com/a b': "
         f"character 17 (' ') {ALLOWED}"),
        ("https://ex.com/it's", "MLPERF_LEDGER_SITE_URL \"https://ex.com/it's\": "
         f"character 18 (\"'\") {ALLOWED}"),
        ("https://ex.com/\x1b[2J", "MLPERF_LEDGER_SITE_URL 'https://ex.com/\\x1b[2J': "
         f"character 16 ('\\x1b') {ALLOWED}"),
        # A right-to-left override: repr shows it as its code point.
        ("https://ex.com/\u202e", "MLPERF_LEDGER_SITE_URL 'https://ex.com/\\u202e': "
         f"character 16 ('\\u202e') {ALLOWED}"),
        ("https://ex.com/" + "a" * 10_000, "MLPERF_LEDGER_SITE_URL: a URL of 10015 "
         "characters is too long (at most 2000)"),
        ("ex.com/ledger", "MLPERF_LEDGER_SITE_URL 'ex.com/ledger': expected an "
         "absolute http:// or https:// URL"),
        ("javascript:alert(1)", "MLPERF_LEDGER_SITE_URL 'javascript:alert(1)': "
         "expected an absolute http:// or https:// URL"),
        ("https:///ledger", "MLPERF_LEDGER_SITE_URL 'https:///ledger': no host in "
         "the URL"),
        ("https://ex.com:99999/", "MLPERF_LEDGER_SITE_URL 'https://ex.com:99999/': "
         "not a URL (Port out of range 0-65535)"),
    ],
)  # fmt: skip
def test_a_site_url_that_is_not_a_plain_absolute_url_is_refused_and_named(
    monkeypatch: pytest.MonkeyPatch, value: str, message: str
) -> None:
    monkeypatch.setenv("MLPERF_LEDGER_SITE_URL", value)
    with pytest.raises(SettingError) as refused:
        settings.site_url()
    assert str(refused.value) == message


def test_a_good_site_url_is_kept_as_given(monkeypatch: pytest.MonkeyPatch) -> None:
    url = "https://ledger.example.org/mlperf/?v=1&x=%20#top"
    monkeypatch.setenv("MLPERF_LEDGER_SITE_URL", f"  {url} ")
    assert settings.site_url() == url
    monkeypatch.setenv("MLPERF_LEDGER_SITE_URL", "")
    assert settings.site_url() == ""


def test_the_tree_api_is_a_url_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MLPERF_TREE_API", "http://127.0.0.1:8000/<x>")
    with pytest.raises(SettingError) as refused:
        settings.tree_api()
    assert str(refused.value) == (
        f"MLPERF_TREE_API 'http://127.0.0.1:8000/<x>': character 23 ('<') {ALLOWED}"
    )


def test_the_sources_repo_placeholder_is_allowed_and_nothing_else() -> None:
    assert check_url("MLPERF_SOURCE", "http://h/{repo}/raw", extra="{}")
    with pytest.raises(SettingError, match=r"character 10 \('\{'\)"):
        check_url("MLPERF_TREE_API", "http://h/{repo}")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("git+ssh://-oProxyCommand=touch%20x/y", "MLPERF_SOURCE "
         "'git+ssh://-oProxyCommand=touch%20x/y': a host starting with '-' is "
         "refused"),
        ("git+https://github.com/a b", "MLPERF_SOURCE 'git+https://github.com/a b': "
         "character 25 (' ') is not allowed in a URL (expected an absolute http:// "
         "or https:// or ssh:// URL without quotes, angle brackets, whitespace or "
         "control characters; percent-encode others)"),
        ("git+https:///x", "MLPERF_SOURCE 'git+https:///x': no host in the URL"),
        ("http://mirror\n.example/", "MLPERF_SOURCE 'http://mirror\\n.example/': "
         f"character 14 ('\\n') {ALLOWED}"),
    ],
)  # fmt: skip
def test_a_source_url_reaching_git_or_http_is_checked(value: str, message: str) -> None:
    with pytest.raises(SettingError) as refused:
        settings.check_source("MLPERF_SOURCE", value)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    "variable",
    ["MLPERF_DATA_DIR", "MLPERF_BUILD_DIR", "MLPERF_CACHE_DIR", "MLPERF_GIT_CACHE_DIR"],
)
def test_a_folder_variable_with_a_control_character_is_named(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, "/tmp/a\x1b]0;owned\x07b")
    reader = {
        "MLPERF_DATA_DIR": settings.data_dir,
        "MLPERF_BUILD_DIR": settings.build_dir,
        "MLPERF_CACHE_DIR": settings.cache_dir,
        "MLPERF_GIT_CACHE_DIR": settings.git_cache_dir,
    }[variable]
    with pytest.raises(SettingError) as refused:
        reader()
    assert str(refused.value) == (
        f"{variable} '/tmp/a\\x1b]0;owned\\x07b': a control character in a folder path"
    )


def test_a_folder_with_spaces_is_a_folder() -> None:
    assert check_folder("MLPERF_DATA_DIR", "/srv/My Ledger/data") == (
        "/srv/My Ledger/data"
    )


def test_a_bad_token_is_refused_without_being_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret\r\nX-Evil: 1")
    with pytest.raises(SettingError) as refused:
        settings.check_environment()
    assert str(refused.value) == (
        "GITHUB_TOKEN: expected a token of printable ASCII without spaces, at most "
        "255 characters (its 21 characters are not shown)"
    )
    assert "secret" not in str(refused.value)


def test_a_bad_source_date_epoch_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    with pytest.raises(SettingError) as refused:
        settings.check_environment()
    assert str(refused.value) == (
        "SOURCE_DATE_EPOCH 'yesterday': expected a whole number of seconds since "
        "1970-01-01 UTC"
    )


@pytest.mark.parametrize("epoch", ["999999999999", "4294967296"])
def test_a_source_date_epoch_beyond_what_a_build_can_carry_is_refused(
    epoch: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    with pytest.raises(SettingError) as refused:
        settings.check_environment()
    assert str(refused.value) == (
        f"SOURCE_DATE_EPOCH {epoch}: after the latest date a build can carry, "
        "4294967295 (2106-02-07T06:28:15Z: the sitemap's gzip header holds 32 bits)"
    )


def test_the_last_source_date_epoch_a_build_can_carry_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "4294967295")
    settings.check_environment()
    assert settings.source_date_epoch() == 4294967295
