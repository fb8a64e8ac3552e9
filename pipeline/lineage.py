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
