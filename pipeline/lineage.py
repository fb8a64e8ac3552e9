"""Code versions for Dagster assets, derived from the source of the modules they run.

A transform's code_version changes exactly when its code changes, so Dagster marks
downstream assets stale and the Audit page can name the code behind every number.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
import inspect
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from types import ModuleType

#: Only the project's own modules are followed; third-party code is pinned by version.
PACKAGE = "pipeline"
REGISTRY = Path(__file__).parent / "registry"


def _imported(module: ModuleType, source: str) -> frozenset[str]:
    """Names of the project modules ``source`` imports (absolute and relative)."""
    package = module.__name__ if hasattr(module, "__path__") else module.__package__
    return _imports_in(source, package or "")


#: Import statements at any indentation, parenthesised ones across lines. A match in
#: a docstring only adds a dependency (a more cautious version), never loses one.
_IMPORT_LINES = re.compile(
    r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import[ \t]*(?:\([^)]*\)|[^\n]*)"
    r"|import[ \t]+[^\n]*)",
    re.MULTILINE,
)


@lru_cache(maxsize=1024)
def _imports_in(source: str, package: str) -> frozenset[str]:
    # Every asset's code version walks overlapping closures: parse each source once,
    # and only its import statements (parsing whole modules would slow each start).
    statements = "\n".join(line.strip() for line in _IMPORT_LINES.findall(source))
    try:
        tree = ast.parse(statements)
    except SyntaxError:  # a backslash continuation, say: read the whole module
        tree = ast.parse(source)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = importlib.util.resolve_name("." * node.level + base, package)
            # ``from pipeline.render import charts`` imports a module, not a name.
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {n for n in names if n == PACKAGE or n.startswith(PACKAGE + ".")}
    return frozenset(found)


def module_closure(
    *modules: ModuleType | object, read: Callable[[ModuleType], str] = inspect.getsource
) -> dict[str, str]:
    """Every project module the given ones import, transitively: name -> source.

    An asset's code version must change when any code it runs changes, not only its
    own module (a chart module edited must make the site stale), so the version is
    taken over this closure rather than a hand-kept list.
    """
    seen: dict[str, str] = {}
    # A function or class stands for its whole module: what it calls lives there.
    todo = [m if inspect.ismodule(m) else inspect.getmodule(m) for m in modules]
    while todo:
        module = todo.pop()
        if module.__name__ in seen:
            continue
        source = read(module)
        seen[module.__name__] = source
        for name in sorted(_imported(module, source)):
            try:
                todo.append(importlib.import_module(name))
            except ImportError:
                continue  # a name imported from a module, not a module itself
    return seen


def code_version(
    *modules: ModuleType | object,
    extra: tuple[str, ...] = (),
    read: Callable[[ModuleType], str] = inspect.getsource,
) -> str:
    """Short sha256 over the source of modules and every project module they import.

    Registry files are code too: when the closure reaches ``pipeline.registry`` every
    reviewed TOML file is included. ``extra`` adds other data files' text.
    """
    closure = module_closure(*modules, read=read)
    digest = hashlib.sha256()
    for name in sorted(closure):
        digest.update(name.encode() + b"\0" + closure[name].encode())
    if any(name.startswith(f"{PACKAGE}.registry") for name in closure):
        for path in sorted(REGISTRY.glob("*.toml")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    for text in extra:
        digest.update(text.encode())
    return digest.hexdigest()[:12]


def mermaid(edges: list[tuple[str, str]], nodes: list[str]) -> str:
    """The asset graph as a Mermaid flowchart (for the Audit page)."""
    lines = ["flowchart LR"]
    lines += [f"  {node}" for node in sorted(nodes)]
    lines += [f"  {parent} --> {child}" for parent, child in sorted(edges)]
    return "\n".join(lines) + "\n"


def git_commit(root: str | None = None) -> str:
    """The commit of the pipeline code (with "+dirty" for local changes), or unknown."""
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return commit + ("+dirty" if dirty else "")
