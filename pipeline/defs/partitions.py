"""The release partitions: one per MLPerf Inference round.

Dynamic, so that the discovery sensor can add a round published after this code was
written; the manifest's rounds are added by the CLI and the manifest sensor.
"""

import dagster as dg

from pipeline.assets import RELEASES

release_partitions = dg.DynamicPartitionsDefinition(name=RELEASES)

#: Cross-release assets rebuild when any upstream partition changes (with the daemon,
#: e.g. `make ui`). Unlike plain eager(), a release that never materialized (a failed
#: new round) does not hold back the rest: the last good data of the others publishes.
FOLLOW_UPSTREAM = dg.AutomationCondition.eager().without(
    ~dg.AutomationCondition.any_deps_missing()
)
