"""Credentials in a URL never leave the machine.

A source may be given as ``http://user:password@host/...`` or
``git+https://token@host/...``: the source sends those credentials, but every URL
that is stored (snapshot sidecars, ``served.json``), logged (terminal lines, Dagster
metadata, error messages), shown or published (Audit, the Releases index, the
downloads) goes through :func:`redact_url` or :func:`redact_text` first. A password
becomes ``***`` (``user:***@host``); a user name alone, which is how tokens are
usually written (``https://TOKEN@host``), becomes ``***@host``.
"""

from __future__ import annotations

import re

#: The user information of any URL in a text: a scheme (``git+https`` included),
#: ``://``, then everything up to the last ``@`` before the host's end.
#: Group 1: scheme and ``//``; group 2: the user name; group 3: ``:password``.
_USERINFO = re.compile(
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)"
    r"(?P<user>[^\s/?#@:]*)(?P<password>:[^\s/?#@]*)?@"
)

MASK = "***"


def _replace(match: re.Match[str]) -> str:
    scheme, user, password = match.group("scheme", "user", "password")
    if password is not None:
        return f"{scheme}{user}:{MASK}@"
    return f"{scheme}{MASK}@"


def redact_text(text: str) -> str:
    """``text`` with the credentials of every URL in it replaced by ``***``."""
    if "@" not in text:
        return text
    return _USERINFO.sub(_replace, text)


def redact_url(url: str) -> str:
    """``url`` without its credentials: ``user:***@host`` or ``***@host``."""
    return redact_text(url)


def has_credentials(url: str) -> bool:
    """Whether ``url`` (or any URL in it) carries a user name or password."""
    return _USERINFO.search(url) is not None


#: The same rule for Polars (Rust regex syntax): a URL column redacted where a
#: table is built, e.g. snapshots stored before redaction existed.
POLARS_WITH_PASSWORD = r"([A-Za-z][A-Za-z0-9+.\-]*://)([^\s/?#@:]*):[^\s/?#@]*@"
POLARS_USER_ONLY = r"([A-Za-z][A-Za-z0-9+.\-]*://)[^\s/?#@:]+@"
