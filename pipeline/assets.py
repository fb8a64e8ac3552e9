"""Names the Dagster wiring (``pipeline/defs/``) and the commands that run it share.

The commands (``runner``, ``update``, ``forget``) start runs and add partitions by
these names without importing the wiring itself; ``pipeline/defs/`` builds its
partitions, sensors and schedules from the same names.
"""

#: The name of the dynamic release partitions: one per MLPerf Inference round.
RELEASES = "release"

#: Assets materialized per release partition; everything else follows downstream.
PER_RELEASE = [
    "raw_mlperf__summary",
    "raw_mlperf__tree",
    "core_mlperf__tree_results",
    "core_mlperf__tree_rejected",
    "core_mlperf__tree_measured",
    "core_mlperf__submitter_check",
    "core_mlperf__results",
    "core_mlperf__rejected",
]
