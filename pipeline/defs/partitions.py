"""The release partitions: one per MLPerf Inference round.

Dynamic, so that the discovery sensor can add a round published after this code was
written; the manifest's rounds are added by the CLI and the manifest sensor.
"""

import dagster as dg

RELEASES = "release"
release_partitions = dg.DynamicPartitionsDefinition(name=RELEASES)
