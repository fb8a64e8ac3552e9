"""Page file names from upstream names: one page per entity, by construction.

``slug`` folds case and punctuation, so distinct upstream names can share one
("llama2_70b_99" and "llama2-70b-99"); writing both pages to one file once replaced
the real benchmark page with a hostile record's. ``unique_slugs`` gives every name
its own slug, and ``page_problems`` is the check that the written site has exactly
one page file per entity (the blocking ``one_page_per_entity`` asset check).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import polars as pl

#: Separates a slug from the hash that tells colliding names apart. ``slug`` never
#: writes two hyphens in a row, so a hashed slug never equals a plain one.
HASH_SEPARATOR = "--"
#: Hex digits of the name's sha256 appended to a colliding slug.
HASH_CHARS = 10
#: Index page of an entity folder (``benchmarks/index.md``): not an entity's page.
INDEX = "index.md"
#: Slugs an entity page may not take: the entity folder's own index page. An upstream
#: benchmark named "index" would otherwise overwrite it (and fail the one-page check,
#: holding back the whole site); it gets a hashed slug like any colliding name.
RESERVED = frozenset({INDEX.removesuffix(".md")})
#: Longest slug: file names have a limit (255 bytes), and a chart name joins several
#: slugs. A longer name is cut; ``unique_slugs`` still tells cut names apart.
MAX_SLUG = 64
#: Longest file stem built from slugs (``capped``).
MAX_STEM = 160


def slug(text: str) -> str:
    """A file-name and anchor-safe form of an upstream name ("llama2-70b-99")."""
    cleaned = re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.")
    return cleaned[:MAX_SLUG].rstrip("-.") or "unnamed"


#: What an anchor id keeps: lower-case letters and digits; every other run is a hyphen.
_ANCHOR_UNSAFE = r"[^a-z0-9]+"


def anchor_text(text: str) -> str:
    """An anchor id of ``text`` ("Offline · closed" -> "offline-closed"), maybe ""."""
    return re.sub(_ANCHOR_UNSAFE, "-", text.lower()).strip("-")


def anchor_of(text: pl.Expr) -> pl.Expr:
    """``anchor_text`` of every value of ``text``."""
    lowered = text.str.to_lowercase()
    return lowered.str.replace_all(_ANCHOR_UNSAFE, "-").str.strip_chars("-")


def capped(stem: str) -> str:
    """A file stem of at most ``MAX_STEM`` characters, still unique to ``stem``."""
    if len(stem) <= MAX_STEM:
        return stem
    cut = MAX_STEM - len(HASH_SEPARATOR) - HASH_CHARS
    return f"{stem[:cut].rstrip('-.')}{HASH_SEPARATOR}{name_hash(stem)}"


def name_hash(name: str) -> str:
    """A short, stable digest of the exact name (the same on every build)."""
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:HASH_CHARS]


def unique_slugs(names: Iterable[str]) -> dict[str, str]:
    """A distinct slug for each distinct name, independent of the names' order.

    A name whose slug no other name shares keeps the plain slug. Among names that
    share one, the name equal to its own slug (the canonical spelling, such as
    "llama2-70b-99") keeps it, so a hostile look-alike cannot move the real page;
    every other name gets ``<slug>--<sha256 of the name>``.

    Args:
        names: Upstream names (entity names, not rows; repeats are ignored).

    Returns:
        Name -> slug, one distinct slug per name.
    """
    groups: dict[str, list[str]] = {}
    for name in sorted(set(names)):
        groups.setdefault(slug(name), []).append(name)
    return {
        name: plain
        if (len(group) == 1 or name == plain) and plain not in RESERVED
        else f"{plain}{HASH_SEPARATOR}{name_hash(name)}"
        for plain, group in groups.items()
        for name in group
    }


def page_problems(pages: Mapping[str, Mapping[str, str]], generated: Path) -> list[str]:
    """Why the generated site does not hold exactly one page per entity.

    Args:
        pages: Entity kind (the folder: "benchmarks", "releases") -> entity name ->
            its page, relative to ``generated`` ("benchmarks/resnet.md").
        generated: The generated folder the pages were written to.

    Returns:
        One message per problem, naming the entities and files; [] when every entity
        has its own page file and every page file of the folder has its entity.
    """
    problems = []
    for kind, by_name in sorted(pages.items()):
        shared: dict[str, list[str]] = {}
        for name, page in by_name.items():
            shared.setdefault(page, []).append(name)
        for page, names in sorted(shared.items()):
            if len(names) > 1:
                listed = ", ".join(repr(n) for n in sorted(names)[:-1])
                problems.append(
                    f"{kind}: {listed} and {sorted(names)[-1]!r} share the page {page}"
                )
        for name, page in sorted(by_name.items()):
            if not (generated / page).is_file():
                problems.append(f"{kind}: no page file {page} for {name!r}")
        folder = generated / kind
        files = sorted(
            p.name for p in folder.glob("*.md") if p.name != INDEX and p.is_file()
        )
        if len(files) != len(by_name):
            problems.append(
                f"{kind}: {len(by_name)} entities but {len(files)} page files besides "
                f"the index ({', '.join(files[:10])})"
            )
    return problems
