"""Reading the committed bench results (``make bench``): a bad file says why.

The site must not change with whether someone ran the bench locally: only the
committed file is read, and a file of another schema, or none, names the problem.
"""

from __future__ import annotations

import json
from pathlib import Path

from pipeline import settings
from pipeline.render.performance_sections import (
    RESULTS_FILE,
)

#: The bench results schema this site reads.
SCHEMA_VERSION = settings.BENCH_SCHEMA_VERSION


def load_results(root: Path) -> tuple[dict | None, str | None]:
    """The committed results under ``root``, or None and why they cannot be shown.

    A missing file is not a problem (no results committed yet: ``(None, None)``); an
    unreadable one is, and the reason names what is wrong with it.
    """
    path = root / RESULTS_FILE
    if not path.is_file():
        return None, None
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        where = f"line {error.lineno} column {error.colno}"
        return None, f"not valid JSON ({error.msg} at {where})"
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    except OSError as error:
        return None, f"cannot be opened ({error.strerror or type(error).__name__})"
    if not isinstance(results, dict):
        return None, f"expected a JSON object, found {type(results).__name__}"
    version = results.get("schema_version")
    if version != SCHEMA_VERSION:
        return None, (
            f"schema_version {version!r}, this page reads {SCHEMA_VERSION}; run "
            "make bench again and commit the file it writes"
        )
    return results, None
