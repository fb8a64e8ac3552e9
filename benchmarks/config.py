"""Constants every part of the harness shares, and its one error."""

from __future__ import annotations

import re
from pathlib import Path

from pipeline import settings

#: The committed results file and its layout (the Performance page reads them).
RESULTS_FILE = settings.BENCH_RESULTS_FILE
SCHEMA_VERSION = settings.BENCH_SCHEMA_VERSION

#: The checkout holding ``benchmarks/`` (children run ``-m benchmarks.bench`` here).
ROOT = Path(__file__).resolve().parent.parent

#: Synthetic scales of the analytics benchmark (copies of every real row).
SCALES = (1, 10, 100)
QUICK_SCALES = (1, 10)
DEFAULT_REPEAT = 3
#: The summary rounds of the "four summary rounds" cold build (issue 14).
SUMMARY_ROUNDS = ("v4.1", "v5.1", "v6.0", "v6.1")
#: The round whose raw submission tree is parsed (the largest subset in the mirror).
RAW_TREE_RELEASE = "v5.1"
#: Relative jitter applied to replicated values (+-1 %): enough that copies are not
#: exact ties in best-of selections, small enough that no ratio changes meaning.
JITTER = 0.02
GB = 1_000_000_000
#: The site's own page budget.
PAGE_BUDGET_BYTES = settings.PAGE_BUDGET_BYTES
SPEC_ATTRIBUTE = re.compile(r'data-spec="([^"]+)"')
DATA_URL = re.compile(r'"url"\s*:\s*"(data/[^"]+)"')
ANALYTICS_NAME = re.compile(r"^analytics_x(\d+)$")


class BenchError(RuntimeError):
    """A measurement could not be taken; the message says which and why."""


#: Invented keys per record in the many-keys snapshot diff.
MANY_KEYS = 160
