"""mlperf-ledger: auditable cross-round numbers from MLPerf Inference results.

Business logic lives in plain modules (``manifest``, ``source``, ``snapshots``,
``extract``, ``transform``, ...); ``pipeline.defs`` only wires them into Dagster.
"""
