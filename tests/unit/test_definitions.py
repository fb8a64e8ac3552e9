"""Snapshot of the asset graph: a change to it shows up in review."""

import dagster as dg

from pipeline.definitions import defs


def test_asset_graph_snapshot() -> None:
    definitions = defs()
    keys = sorted(k.to_user_string() for k in definitions.resolve_all_asset_keys())
    assert keys == [
        "_out_mlperf__pair_candidates",
        "core_mlperf__all_results",
        "core_mlperf__crosscheck",
        "core_mlperf__rejected",
        "core_mlperf__results",
        "core_mlperf__submitter_check",
        "core_mlperf__systems_quarantined",
        "core_mlperf__tree_measured",
        "core_mlperf__tree_rejected",
        "core_mlperf__tree_results",
        "out_mlperf__claims",
        "out_mlperf__corrections",
        "out_mlperf__exclusions",
        "out_mlperf__generation_ratios",
        "out_mlperf__results",
        "out_mlperf__scaling",
        "out_mlperf__software_gains",
        "out_mlperf__system_fields",
        "out_mlperf__systems",
        "out_site__pages",
        "out_site__published",
        "raw_mlperf__summary",
        "raw_mlperf__tree",
    ]
    graph = definitions.resolve_asset_graph()
    checks = sorted(k.to_user_string() for k in graph.asset_check_keys)
    assert checks == [
        "core_mlperf__rejected:no_rejected_records",
        "core_mlperf__rejected:rejected_share_at_most_1pct",
        "core_mlperf__results:keys_not_null",
        "core_mlperf__results:known_scenarios_and_units",
        "core_mlperf__results:not_all_rejected",
        "core_mlperf__results:results_finite_positive",
        "core_mlperf__results:row_count_stable",
        "core_mlperf__results:schema",
        "core_mlperf__results:unique_result_keys",
        "out_mlperf__generation_ratios:no_duplicate_pairs",
        "out_mlperf__generation_ratios:no_self_pairs",
        "out_mlperf__generation_ratios:ratios_finite_positive",
        "out_mlperf__generation_ratios:results_exist",
        "out_mlperf__results:accelerators_mapped",
        "out_mlperf__scaling:no_duplicate_pairs",
        "out_mlperf__scaling:no_self_pairs",
        "out_mlperf__scaling:ratios_finite_positive",
        "out_mlperf__scaling:results_exist",
        "out_mlperf__software_gains:no_duplicate_pairs",
        "out_mlperf__software_gains:no_self_pairs",
        "out_mlperf__software_gains:ratios_finite_positive",
        "out_mlperf__software_gains:results_exist",
        "out_site__pages:one_page_per_entity",
        "out_site__published:every_page_present",
        "out_site__published:mkdocs_strict_build",
        "out_site__published:page_weight_budget",
    ]
    raw = graph.get(dg.AssetKey("raw_mlperf__summary"))
    assert raw.partitions_def.name == "release"
    assert raw.code_version  # derived from the source of the modules it runs
