"""Every patch of MkDocs, Material and Markdown internals, and the versions they fit.

The hooks (``hooks.py``, ``cache.py``) replace a few functions of the libraries that
have no hook of their own: where MkDocs copies and writes files, resolves a page's
relative links (its private ``_RelativePathTreeprocessor``), converts a page's
Markdown, and where Material's search indexes a page. Those are internals, free to
change in any release, so the patches are made here only, each by name
(``PATCHED``), and only for the versions they were written and tested against
(``PINNED``, the pins of ``pyproject.toml``; a test keeps the two equal).
``install`` checks the installed versions first and refuses any other with the
package, the installed and the expected version named.

The hooks install their patches when MkDocs configures a build (``on_config``), and
call what they replace through ``original``. Installing again replaces the earlier
patch rather than wrapping it: a hook loaded twice in one process (imported by a
test and loaded by MkDocs from its path) still calls MkDocs' own function once.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata
from typing import Any

from mkdocs.exceptions import PluginError

#: Distribution -> the version the patches were written for (``pyproject.toml``).
PINNED = {"mkdocs": "1.6.1", "mkdocs-material": "9.8.2", "markdown": "3.11.3"}
#: What a patch replaces: its name -> (module, attribute owner, attribute).
PATCHED = {
    "copy_file": ("mkdocs.utils", None, "copy_file"),
    "write_file": ("mkdocs.utils", None, "write_file"),
    "resolve_link": (
        "mkdocs.structure.pages",
        "_RelativePathTreeprocessor",
        "path_to_url",
    ),
    "render_page": ("mkdocs.structure.pages", "Page", "render"),
    "add_search_entry": (
        "material.plugins.search.plugin",
        "SearchIndex",
        "add_entry_from_context",
    ),
}
#: The libraries' own functions, taken before the first patch replaced them.
originals: dict[str, Callable[..., Any]] = {}


def installed_version(package: str) -> str | None:
    """The installed version of a distribution, or None when it is not installed."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def check_versions() -> None:
    """Refuse to patch libraries other than the pinned versions.

    Raises:
        PluginError: a library is missing or at another version than ``PINNED``.
    """
    for package, expected in PINNED.items():
        installed = installed_version(package)
        if installed != expected:
            found = f"{installed} is installed" if installed else "is not installed"
            raise PluginError(
                f"{package} {found}, but pipeline/render/mkdocs/patches.py patches "
                f"{package} {expected} (the version pyproject.toml pins): install "
                f"the pinned versions (`make venv`), or review every patch against "
                f"{package} {installed} before changing the pin"
            )


def _owner(name: str) -> Any:
    module_name, owner, _ = PATCHED[name]
    module = __import__(module_name, fromlist=["_"])
    return getattr(module, owner) if owner else module


def install(**replacements: Callable[..., Any]) -> None:
    """Check the versions, then put each replacement in place of the named function.

    Raises:
        PluginError: see ``check_versions``.
        KeyError: a name that is not in ``PATCHED``.
    """
    check_versions()
    for name, replacement in replacements.items():
        owner, attribute = _owner(name), PATCHED[name][2]
        originals.setdefault(name, getattr(owner, attribute))
        setattr(owner, attribute, replacement)


def original(name: str) -> Callable[..., Any]:
    """The library's own function that the patch ``name`` replaces (or will)."""
    if name not in originals:
        originals[name] = getattr(_owner(name), PATCHED[name][2])
    return originals[name]


def link_resolver(file: Any, files: Any, config: Any) -> Any:
    """MkDocs' resolver of a page's relative links, as it converts that page.

    ``original("resolve_link")(resolver, url)`` resolves ``url`` as MkDocs would;
    the resolver's ``links_to_anchors`` then holds the links to other pages' anchors.
    """
    return _owner("resolve_link")(file, files, config)
