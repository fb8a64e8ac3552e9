"""Code versions for Dagster assets, derived from the source of the modules they run.

A transform's code_version changes exactly when its code changes, so Dagster marks
downstream assets stale and the Audit page can name the code behind every number.
"""

from __future__ import annotations

import hashlib
import inspect
from types import ModuleType


def code_version(*modules: ModuleType, extra: tuple[str, ...] = ()) -> str:
    """Short sha256 over the source text of modules (and extra data files' text)."""
    digest = hashlib.sha256()
    for module in modules:
        digest.update(inspect.getsource(module).encode())
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
