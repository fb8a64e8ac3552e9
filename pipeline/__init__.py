"""mlperf-ledger: auditable cross-round numbers from MLPerf Inference results.

Business logic lives in plain modules (``manifest``, ``source``, ``snapshots``,
``extract``, ``transform``, ...); ``pipeline.defs`` only wires them into Dagster.
"""

import os

#: Polars allocates through its own jemalloc, which by default keeps freed pages
#: and purges them only while allocating: one Dagster run carried each step's peak
#: into the next. A background thread returns them after one second (muzzy pages
#: at once), which lowers the analytics' peak memory at no cost in time
#: (benchmarks/README.md has the figures). Polars
#: appends this variable to its defaults and jemalloc keeps the last value of each
#: option, so it must be set before Polars is imported, hence here; a value already
#: in the environment wins. A process that imported Polars first keeps Polars'
#: defaults, and so do the processes it starts (benchmarks/bench.py imports this
#: package first for that reason).
ALLOCATOR_CONF = "background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0"
os.environ.setdefault("_RJEM_MALLOC_CONF", ALLOCATOR_CONF)
