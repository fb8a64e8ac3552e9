"""One way to read a registry file, and one way to say what is wrong with it.

Every reviewed registry (``pipeline/registry/*.toml``) is read here: a missing file, an
unreadable one and a TOML syntax error become one ``RegistryError`` naming the file
(and the line), before the registry's own parser sees the document. The parsers read
their fields through ``Table``, so a bad field reads the same in every registry::

    <file>: [<table path>] <field>: expected <type>, got <repr>

This is the only module of ``pipeline`` that imports ``tomllib``.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

REGISTRY_DIR = Path(__file__).parent

T = TypeVar("T")
#: What a registry parser takes: the parsed document and the file name for messages.
Parser = Callable[[Mapping[str, Any], str], T]


class RegistryError(ValueError):
    """A registry file is missing, unreadable or malformed; the message says where."""


class _Missing:
    def __repr__(self) -> str:
        return "nothing"


#: A field that is not in its table (``got nothing`` in messages).
MISSING: Any = _Missing()
_POSITION = re.compile(
    r"^(?P<msg>.*) \(at (?P<where>line \d+, column \d+|end of document)\)$"
)


def registry_file(name_or_path: str | Path) -> Path:
    """A bare file name is a committed registry; anything else is a path as given."""
    if isinstance(name_or_path, str) and "/" not in name_or_path:
        return REGISTRY_DIR / name_or_path
    return Path(name_or_path)


def read_document(
    name_or_path: str | Path, error: type[RegistryError] = RegistryError
) -> dict[str, Any]:
    """The parsed TOML of a registry file, with every way to fail as one error.

    Raises:
        RegistryError (or ``error``): the file is missing, cannot be read as UTF-8
            text, or is not valid TOML (the message gives the line and column).
    """
    path = registry_file(name_or_path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{path.name}: no such registry file: {path}") from None
    except IsADirectoryError:
        raise error(f"{path.name}: is a folder, not a registry file: {path}") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path.name}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise error(f"{path.name}: cannot be read: {exc.strerror or exc}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = _POSITION.match(str(exc))
        if found is None:
            raise error(f"{path.name}: not valid TOML: {exc}") from None
        raise error(
            f"{path.name}: {found['where']}: not valid TOML: {found['msg']}"
        ) from None


def load_registry(
    name_or_path: str | Path,
    parse: Parser[T],
    error: type[RegistryError] = RegistryError,
) -> T:
    """Read one registry file and hand its document to that registry's parser.

    Args:
        name_or_path: a committed registry's file name (``"rounds.toml"``) or a path
            (tests, an entry under review).
        parse: the registry's parser, called with the document and the file name.
        error: the registry's own ``RegistryError`` subclass, so callers that catch
            it also catch an unreadable file.
    """
    path = registry_file(name_or_path)
    return parse(read_document(path, error), path.name)


@dataclass(frozen=True)
class Table:
    """One TOML table of a registry file and where it sits, for uniform messages.

    ``path`` is empty for the document itself, ``"rule 2 (from v4.1).metric.Server"``
    for a table inside the second ``[[rule]]``.
    """

    data: Mapping[str, Any]
    file: str
    path: str = ""
    error: type[RegistryError] = RegistryError

    @classmethod
    def document(
        cls,
        document: Mapping[str, Any],
        file: str,
        error: type[RegistryError] = RegistryError,
    ) -> Table:
        """The root table of a parsed registry file."""
        if not isinstance(document, Mapping):
            raise error(f"{file}: expected a TOML document, got {document!r}")
        return cls(document, file, "", error)

    # ---- messages -----------------------------------------------------------------

    def where(self, field: str | None = None) -> str:
        """``<file>: [<table path>] <field>`` (parts that are empty left out)."""
        parts = [f"{self.file}:"]
        if self.path:
            parts.append(f"[{self.path}]")
        if field:
            parts.append(field)
        return " ".join(parts)

    def fail(self, field: str | None, message: str) -> RegistryError:
        """An error about one field (or the table when ``field`` is None)."""
        return self.error(f"{self.where(field)}: {message}")

    def expected(self, field: str, expected: str, value: object) -> RegistryError:
        """The one message for a field of the wrong type or value."""
        return self.fail(field, f"expected {expected}, got {value!r}")

    # ---- structure -----------------------------------------------------------------

    def __contains__(self, field: object) -> bool:
        return field in self.data

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def get(self, field: str, default: Any = MISSING) -> Any:
        """The raw value of a field (``MISSING`` when absent and no default)."""
        return self.data.get(field, default)

    def child(self, segment: str) -> str:
        """The path of a table under this one."""
        return f"{self.path}.{segment}" if self.path else segment

    def named(self, label: str) -> Table:
        """The same table with a label that names it better than its position."""
        return Table(self.data, self.file, f"{self.path} ({label})", self.error)

    def only(self, allowed: Sequence[str] | frozenset[str] | set[str]) -> None:
        """Refuse a field the registry does not define (a typo would be ignored)."""
        unknown = sorted(set(self.data) - set(allowed))
        if unknown:
            known = ", ".join(sorted(allowed))
            raise self.fail(unknown[0], f"unknown field (known: {known})")

    def require(self, fields: Sequence[str]) -> None:
        """Refuse a table that lacks one of ``fields``, naming the first missing."""
        for field in fields:
            if field not in self.data:
                raise self.fail(field, "is required")

    def table(self, field: str, *, optional: bool = False) -> Table:
        """A sub-table (an empty one when ``optional`` and absent)."""
        value = self.data.get(field, {} if optional else MISSING)
        if not isinstance(value, Mapping):
            raise self.expected(field, "a table", value)
        return Table(value, self.file, self.child(field), self.error)

    def tables(self, field: str, *, non_empty: bool = False) -> list[Table]:
        """An array of tables (``[[field]]``), each named ``<field> <1-based index>``.

        Absent means none, unless ``non_empty``.
        """
        value = self.data.get(field, MISSING if non_empty else [])
        if (
            not isinstance(value, list)
            or (non_empty and not value)
            or not all(isinstance(v, Mapping) for v in value)
        ):
            what = "a non-empty array of tables" if non_empty else "an array of tables"
            raise self.expected(field, f"{what} [[{field}]]", value)
        return [
            Table(v, self.file, self.child(f"{field} {i}"), self.error)
            for i, v in enumerate(value, start=1)
        ]

    def subtables(self, field: str, *, non_empty: bool = False) -> dict[str, Table]:
        """A table of named tables (``[field.<name>]``), by name."""
        parent = self.table(field, optional=not non_empty)
        if non_empty and not parent.data:
            raise self.expected(field, f"one or more [{field}.<name>] tables", {})
        out: dict[str, Table] = {}
        for name, value in parent.data.items():
            if not isinstance(value, Mapping):
                raise parent.expected(name, "a table", value)
            out[name] = Table(value, self.file, parent.child(name), self.error)
        return out

    # ---- typed fields --------------------------------------------------------------

    def string(
        self,
        field: str,
        *,
        default: Any = MISSING,
        empty: bool = False,
        pattern: re.Pattern[str] | None = None,
        expected: str | None = None,
    ) -> str:
        """A string, stripped; non-empty unless ``empty``; matching ``pattern``.

        ``expected`` names what ``pattern`` accepts ("a 40-digit hex commit").
        """
        value = self.data.get(field, default)
        ok = isinstance(value, str) and (empty or bool(value.strip()))
        if ok and pattern is not None:
            ok = bool(pattern.fullmatch(value.strip()))
        if not ok:
            what = expected or ("a string" if empty else "a non-empty string")
            raise self.expected(field, what, value)
        return value.strip()

    def optional_string(self, field: str, **kwargs: Any) -> str | None:
        """A string as ``string`` reads it, or None when the field is absent."""
        if field not in self.data:
            return None
        return self.string(field, **kwargs)

    def choice(
        self, field: str, allowed: Sequence[str], *, default: Any = MISSING
    ) -> str:
        """One of ``allowed`` (exactly, case included)."""
        value = self.data.get(field, default)
        if not isinstance(value, str) or value not in allowed:
            raise self.expected(field, one_of(allowed), value)
        return value

    def number(
        self,
        field: str,
        *,
        default: Any = MISSING,
        positive: bool = False,
        below: float | None = None,
        expected: str | None = None,
    ) -> float:
        """An integer or float (never a boolean), as float.

        ``expected`` names what the bounds accept ("a positive number of
        milliseconds").
        """
        value = self.data.get(field, default)
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if ok and positive:
            ok = value > 0
        if ok and below is not None:
            ok = value < below
        if not ok:
            what = "a positive number" if positive else "a number"
            if below is not None:
                what = f"{what} below {below:g}"
            raise self.expected(field, expected or what, value)
        return float(value)

    def optional_number(self, field: str, **kwargs: Any) -> float | None:
        """A number as ``number`` reads it, or None when the field is absent."""
        if field not in self.data:
            return None
        return self.number(field, **kwargs)

    def integer(
        self,
        field: str,
        *,
        default: Any = MISSING,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> int:
        """A whole number (never a boolean or a float) within the bounds given."""
        value = self.data.get(field, default)
        ok = isinstance(value, int) and not isinstance(value, bool)
        if ok and minimum is not None:
            ok = value >= minimum
        if ok and maximum is not None:
            ok = value <= maximum
        if not ok:
            if minimum is not None and maximum is not None:
                what = f"a whole number from {minimum} to {maximum}"
            elif minimum is not None:
                what = f"a whole number of at least {minimum}"
            elif maximum is not None:
                what = f"a whole number of at most {maximum}"
            else:
                what = "a whole number"
            raise self.expected(field, what, value)
        return value

    def boolean(self, field: str, *, default: Any = MISSING) -> bool:
        """``true`` or ``false``."""
        value = self.data.get(field, default)
        if not isinstance(value, bool):
            raise self.expected(field, "true or false", value)
        return value

    def strings(
        self,
        field: str,
        *,
        default: Any = MISSING,
        non_empty: bool = False,
        unique: bool = False,
        allowed: Sequence[str] | None = None,
        pattern: re.Pattern[str] | None = None,
        expected: str | None = None,
    ) -> tuple[str, ...]:
        """A list of trimmed, non-empty strings (from ``allowed`` when given)."""
        value = self.data.get(field, default)
        ok = isinstance(value, list) and all(
            isinstance(v, str) and v and v.strip() == v for v in value
        )
        if ok and non_empty:
            ok = bool(value)
        if ok and allowed is not None:
            ok = all(v in allowed for v in value)
        if ok and pattern is not None:
            ok = all(pattern.fullmatch(v) for v in value)
        if not ok:
            what = expected or (
                f"a list, each item {one_of(allowed)}"
                if allowed is not None
                else "a list of trimmed, non-empty strings"
            )
            if non_empty:
                what = f"{what} (at least one)"
            raise self.expected(field, what, value)
        if unique:
            twice = sorted({v for v in value if value.count(v) > 1})
            if twice:
                raise self.fail(field, f"lists {twice[0]!r} twice")
        return tuple(value)

    def string_map(
        self,
        field: str,
        *,
        default: Any = MISSING,
        keys: Sequence[str] | None = None,
        values: Sequence[str] | None = None,
        pattern: re.Pattern[str] | None = None,
        expected: str | None = None,
    ) -> dict[str, str]:
        """A table of strings, keys from ``keys`` and values from ``values`` if given.

        ``pattern``, when given, must match every value in full.
        """
        value = self.data.get(field, default)
        ok = isinstance(value, Mapping) and all(
            isinstance(v, str) for v in value.values()
        )
        if ok and keys is not None:
            ok = all(k in keys for k in value)
        if ok and values is not None:
            ok = all(v in values for v in value.values())
        if ok and pattern is not None:
            ok = all(pattern.fullmatch(v) for v in value.values())
        if not ok:
            raise self.expected(field, expected or "a table of strings", value)
        return dict(value)

    def date(self, field: str, *, default: Any = MISSING) -> dt.date:
        """A TOML local date (``2026-11-29``) or the same as a quoted string."""
        value = self.data.get(field, default)
        if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
            return value
        if isinstance(value, str):
            try:
                return dt.date.fromisoformat(value)
            except ValueError:
                pass
        raise self.expected(field, "a date (YYYY-MM-DD)", value)

    def optional_date(self, field: str) -> dt.date | None:
        """A date as ``date`` reads it, or None when the field is absent."""
        if field not in self.data:
            return None
        return self.date(field)


#: A round, a full commit and a GitHub repository, as the registries write them.
RELEASE = re.compile(r"v\d+\.\d+")
COMMIT = re.compile(r"[0-9a-f]{40}")
REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
#: The fields naming an entry's evidence: one upstream file at one commit.
UPSTREAM_FILE_KEYS = ("repository", "path", "commit", "symbol")


@dataclass(frozen=True)
class UpstreamFile:
    """Where upstream states what a registry entry copies: a file at one commit.

    Registries whose entries cite such a file (with the symbol in it) build on this.
    """

    repository: str
    path: str
    commit: str
    symbol: str

    @property
    def url(self) -> str:
        """The file at that commit on GitHub: the evidence a reviewer opens."""
        return f"https://github.com/{self.repository}/blob/{self.commit}/{self.path}"


def upstream_file(entry: Table) -> dict[str, str]:
    """An entry's ``UPSTREAM_FILE_KEYS``, validated, for an ``UpstreamFile``."""
    return {
        "repository": entry.string(
            "repository", pattern=REPOSITORY, expected="a repository owner/name"
        ),
        "path": entry.string("path"),
        "commit": entry.string(
            "commit", pattern=COMMIT, expected="40 lower-case hex digits"
        ),
        "symbol": entry.string("symbol"),
    }


def one_of(allowed: Sequence[str]) -> str:
    """``one of 'a', 'b'``: how every registry names an enumeration."""
    return "one of " + ", ".join(repr(a) for a in allowed)
