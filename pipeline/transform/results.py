"""Normalise any summary layout into the canonical results table, lazily.

One explicit schema for every round (``RESULTS_SCHEMA``). Each upstream record ends up
either as one canonical row or as one row in the rejected table with a reason; nothing
is dropped silently.
"""

from __future__ import annotations

import polars as pl

from pipeline.registry import benchmark_aliases, unit_corrections

SCENARIOS = ("Offline", "Server", "SingleStream", "MultiStream", "Interactive")
DIVISIONS = ("closed", "open", "network")
AVAILABILITIES = ("available", "preview", "rdi")
#: Upstream unit -> (canonical unit, factor applied to the value).
UNITS: dict[str, tuple[str, float]] = {
    "Tokens/s": ("Tokens/s", 1.0),
    "Samples/s": ("Samples/s", 1.0),
    "Queries/s": ("Queries/s", 1.0),
    "Tasks/s": ("Tasks/s", 1.0),
    "Latency (ms)": ("Latency (ms)", 1.0),
    # v6.0 and v6.1 report some latencies in seconds; one unit keeps them comparable.
    "Latency (s)": ("Latency (ms)", 1000.0),
}

RESULTS_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "result_key": pl.String,
    "result_id": pl.String,
    "submitter": pl.String,
    "division": pl.String,
    "category": pl.String,
    "availability": pl.String,
    "is_preview": pl.Boolean,
    "system_name": pl.String,
    "platform": pl.String,
    "benchmark": pl.String,
    "benchmark_upstream": pl.String,
    "model_upstream": pl.String,
    "scenario": pl.String,
    "result_value": pl.Float64,
    "result_unit": pl.String,
    "result_value_upstream": pl.Float64,
    "result_unit_upstream": pl.String,
    "unit_correction": pl.String,
    "is_higher_better": pl.Boolean,
    "result_per_accelerator": pl.Float64,
    "power_value": pl.Float64,
    "power_unit": pl.String,
    "nodes": pl.Int32,
    "accelerators_per_node": pl.Int32,
    "total_accelerators": pl.Int32,
    "is_total_accelerators_derived": pl.Boolean,
    "accelerator_name": pl.String,
    "accelerator_upstream": pl.String,
    "host_cpu_name": pl.String,
    "software": pl.String,
    "weight_data_types": pl.String,
    "is_inferred": pl.Boolean,
    "location": pl.String,
    "result_url": pl.String,
    "source_file": pl.String,
    "source_record": pl.String,
    "snapshot_sha256": pl.String,
}

REJECTED_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "source_file": pl.String,
    "source_record": pl.String,
    "result_key": pl.String,
    "reason": pl.String,
    "record_json": pl.String,
    "snapshot_sha256": pl.String,
}

#: Canonical intermediate name -> upstream field, per layout (None: not in the layout).
FIELDS: dict[str, dict[str, str | None]] = {
    "final_report": {
        "result_id": "ID",
        "submitter": "Submitter",
        "division": "Category",
        "category": "Suite",
        "availability": "Availability",
        "system_name": "System",
        "platform": "Platform",
        "benchmark_upstream": "Model",
        "model_upstream": "UsedModel",
        "scenario_upstream": "Scenario",
        "value_raw": "Performance_Result",
        "unit_raw": "Performance_Units",
        "power_raw": "Power_Result",
        "power_unit_raw": "Power_Units",
        "nodes_raw": "Nodes",
        "apn_raw": "a#",
        "total_raw": "Total Accelerators",
        "accelerator_upstream": "Accelerator",
        "cpu_raw": "Processor",
        "software": "Software",
        "weight_data_types": "weight_data_types",
        "inferred_raw": "inferred",
        "location_raw": "Location",
    },
    "checker": {
        "result_id": None,
        "submitter": "Organization",
        "division": "Division",
        "category": "SystemType",
        "availability": "Availability",
        "system_name": "SystemName",
        "platform": "Platform",
        "benchmark_upstream": "Model",
        "model_upstream": "MlperfModel",
        "scenario_upstream": "Scenario",
        "value_raw": "Result",
        "unit_raw": "Units",
        "power_raw": None,
        "power_unit_raw": None,
        "nodes_raw": "number_of_nodes",
        "apn_raw": "accelerators_per_node",
        "total_raw": "total_accelerators",
        "accelerator_upstream": "accelerator_model_name",
        "cpu_raw": "host_processor_model_name",
        "software": "framework",
        "weight_data_types": "weight_data_types",
        "inferred_raw": "inferred",
        "location_raw": "Location",
    },
}
#: Fields without which a record cannot be a result (named as upstream spells them).
REQUIRED = (
    "submitter", "division", "platform", "benchmark_upstream", "scenario_upstream",
    "value_raw", "unit_raw", "availability",
)  # fmt: skip


def _blank_to_null(name: str) -> pl.Expr:
    return (
        pl.when(pl.col(name).str.strip_chars() == "")
        .then(None)
        .otherwise(pl.col(name).str.strip_chars())
        .alias(name)
    )


def _as_number(name: str) -> pl.Expr:
    return pl.col(name).cast(pl.Float64, strict=False)


def _as_count(name: str) -> pl.Expr:
    """Counts arrive as 8, 8.0, "8" or "" depending on the round."""
    return _as_number(name).round(0).cast(pl.Int32, strict=False)


def _reason(condition: pl.Expr, message: pl.Expr | str) -> pl.Expr:
    text = pl.lit(message) if isinstance(message, str) else message
    return pl.when(condition).then(text)


def strip_count_suffix(name: pl.Expr) -> pl.Expr:
    """Drop per-system counts such as " (x87)" or " (x2x8)" from hardware names."""
    return name.str.replace_all(r"\s*\(x[\dx]+\)", "").str.strip_chars()


def strip_count_prefix(name: pl.Expr) -> pl.Expr:
    """Drop a leading count such as "2x" from CPU names (v4.1 writes "2xAMD EPYC")."""
    return name.str.replace(r"^\d+\s*x\s*", "").str.strip_chars()


def _rename(raw: pl.LazyFrame, fmt: str) -> pl.LazyFrame:
    fields = FIELDS[fmt]
    return raw.select(
        *[
            (pl.col(up) if up else pl.lit(None, dtype=pl.String)).alias(name)
            for name, up in fields.items()
        ],
        pl.col("source_record"),
        pl.col("record_json"),
    ).with_columns(_blank_to_null(name) for name in fields)


def _rejection_reasons(fmt: str) -> pl.Expr:
    fields = FIELDS[fmt]
    value_name = fields["value_raw"]
    checks = [
        _reason(
            ~pl.col("record_json").str.starts_with("{"),
            pl.format(
                "record is not a JSON object: {}",
                pl.col("record_json").str.slice(0, 40),
            ),
        )
    ]
    checks += [
        _reason(pl.col(name).is_null(), f"missing field {fields[name]!r}")
        for name in REQUIRED
    ]
    value = _as_number("value_raw")
    checks += [
        _reason(
            pl.col("value_raw").is_not_null() & value.is_null(),
            pl.format(f"{value_name} is not a number: '{{}}'", pl.col("value_raw")),
        ),
        _reason(
            value.is_not_null() & ~value.is_finite(),
            pl.format(f"{value_name} is not finite: {{}}", pl.col("value_raw")),
        ),
        _reason(
            value.is_finite() & (value <= 0),
            pl.format(f"{value_name} must be positive, got {{}}", pl.col("value_raw")),
        ),
        _reason(
            pl.col("scenario_upstream").is_not_null() & pl.col("scenario").is_null(),
            pl.format(
                f"unknown {fields['scenario_upstream']} '{{}}'",
                pl.col("scenario_upstream"),
            ),
        ),
        _reason(
            pl.col("unit_raw").is_not_null() & ~pl.col("unit_raw").is_in(list(UNITS)),
            pl.format(f"unknown {fields['unit_raw']} '{{}}'", pl.col("unit_raw")),
        ),
        _reason(
            pl.col("division").is_not_null() & ~pl.col("division").is_in(DIVISIONS),
            pl.format(f"unknown {fields['division']} '{{}}'", pl.col("division")),
        ),
        _reason(
            pl.col("availability").is_not_null()
            & ~pl.col("availability").is_in(AVAILABILITIES),
            pl.format(
                f"unknown {fields['availability']} '{{}}'", pl.col("availability")
            ),
        ),
    ]
    for name in ("nodes_raw", "apn_raw", "total_raw"):
        if fields[name]:
            checks.append(
                _reason(
                    pl.col(name).is_not_null()
                    & (_as_number(name).is_null() | (_as_number(name) < 0)),
                    pl.format(f"{fields[name]} is not a count: '{{}}'", pl.col(name)),
                )
            )
    return pl.concat_str(checks, separator="; ", ignore_nulls=True)


def _unit_corrections(release: str) -> pl.LazyFrame:
    """This release's reviewed unit corrections, keyed like the staged rows."""
    rows = [c for c in unit_corrections() if release in c["releases"]]
    return pl.LazyFrame(
        {
            "benchmark": [c["benchmark"] for c in rows],
            "scenario": [c["scenario"] for c in rows],
            "unit_raw": [c["upstream_unit"] for c in rows],
            "corrected_unit": [c["unit"] for c in rows],
            "unit_correction": [c["reason"] for c in rows],
        },
        schema=dict.fromkeys(
            ["benchmark", "scenario", "unit_raw", "corrected_unit", "unit_correction"],
            pl.String,
        ),
    )


def normalise_summary(
    raw: pl.LazyFrame,
    *,
    fmt: str,
    release: str,
    repository: str,
    source_file: str,
    snapshot_sha256: str,
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Turn one parsed summary file into (canonical results, rejected records)."""
    scenario_lookup = {s.lower(): s for s in SCENARIOS}
    unit = pl.col("unit_raw")
    factor = unit.replace_strict(
        {k: v[1] for k, v in UNITS.items()}, default=None, return_dtype=pl.Float64
    )
    nodes = _as_count("nodes_raw").fill_null(1)
    no_accelerator = pl.col("accelerator_upstream").is_null()
    apn = (
        pl.when(pl.col("apn_raw").is_null() & no_accelerator)
        .then(pl.lit(0, dtype=pl.Int32))
        .otherwise(_as_count("apn_raw"))
    )
    location = (
        pl.col("location_raw")
        .str.strip_prefix("./")
        .str.replace(r"/performance/run_\d+/?$", "")
        .str.strip_suffix("/")
    )
    key_from_fields = pl.format(
        "{}:{}/{}/{}/{}/{}",
        pl.lit(release),
        pl.col("division"),
        pl.col("submitter"),
        pl.col("platform"),
        pl.col("benchmark"),
        pl.col("scenario"),
    )
    staged = (
        _rename(raw, fmt)
        .with_columns(
            scenario=pl.col("scenario_upstream")
            .str.to_lowercase()
            .replace_strict(scenario_lookup, default=None),
            benchmark=pl.col("benchmark_upstream").replace(benchmark_aliases()),
            nodes=nodes,
            accelerators_per_node=apn,
            total_raw_count=_as_count("total_raw"),
            location=location,
        )
        .with_columns(
            result_key=pl.when(pl.col("result_id").is_not_null())
            .then(
                pl.format(
                    "{}:{}:{}",
                    pl.col("result_id"),
                    pl.col("benchmark"),
                    pl.col("scenario"),
                )
            )
            .otherwise(key_from_fields),
            reason=_rejection_reasons(fmt),
        )
        .with_columns(
            # Later records repeating a key are rejected; the first one stands.
            first_record=pl.col("source_record").first().over("result_key"),
        )
        .with_columns(
            reason=pl.when(pl.col("reason") != "")
            .then(pl.col("reason"))
            .when(pl.col("source_record") != pl.col("first_record"))
            .then(
                pl.format(
                    "duplicate result key {} (first seen in record {})",
                    pl.col("result_key"),
                    pl.col("first_record"),
                )
            )
        )
    )
    accepted = staged.filter(pl.col("reason").is_null()).join(
        _unit_corrections(release), on=["benchmark", "scenario", "unit_raw"], how="left"
    )
    value = _as_number("value_raw")
    results = (
        accepted.with_columns(
            total_accelerators=pl.coalesce(
                pl.col("total_raw_count"),
                pl.col("nodes") * pl.col("accelerators_per_node"),
            ),
            is_total_accelerators_derived=pl.col("total_raw_count").is_null(),
            result_value=value * factor,
            result_unit=pl.coalesce(
                "corrected_unit",
                unit.replace_strict({k: v[0] for k, v in UNITS.items()}, default=None),
            ),
            is_higher_better=~unit.str.starts_with("Latency"),
        )
        .select(
            pl.lit(release).alias("release"),
            "result_key",
            "result_id",
            "submitter",
            "division",
            "category",
            "availability",
            (pl.col("availability") == "preview").alias("is_preview"),
            "system_name",
            "platform",
            "benchmark",
            "benchmark_upstream",
            "model_upstream",
            "scenario",
            "result_value",
            "result_unit",
            value.alias("result_value_upstream"),
            pl.col("unit_raw").alias("result_unit_upstream"),
            "unit_correction",
            "is_higher_better",
            pl.when(pl.col("is_higher_better") & (pl.col("total_accelerators") > 0))
            .then(pl.col("result_value") / pl.col("total_accelerators"))
            .alias("result_per_accelerator"),
            _as_number("power_raw").alias("power_value"),
            pl.col("power_unit_raw").alias("power_unit"),
            "nodes",
            "accelerators_per_node",
            "total_accelerators",
            "is_total_accelerators_derived",
            strip_count_suffix(pl.col("accelerator_upstream")).alias(
                "accelerator_name"
            ),
            "accelerator_upstream",
            strip_count_prefix(pl.col("cpu_raw")).alias("host_cpu_name"),
            "software",
            "weight_data_types",
            (_as_number("inferred_raw").fill_null(0) > 0).alias("is_inferred"),
            "location",
            pl.format(
                "https://github.com/{}/tree/main/{}",
                pl.lit(repository),
                pl.col("location"),
            ).alias("result_url"),
            pl.lit(source_file).alias("source_file"),
            "source_record",
            pl.lit(snapshot_sha256).alias("snapshot_sha256"),
        )
        .cast(RESULTS_SCHEMA)
    )
    rejected = (
        staged.filter(pl.col("reason").is_not_null())
        .select(
            pl.lit(release).alias("release"),
            pl.lit(source_file).alias("source_file"),
            "source_record",
            "result_key",
            "reason",
            "record_json",
            pl.lit(snapshot_sha256).alias("snapshot_sha256"),
        )
        .cast(REJECTED_SCHEMA)
    )
    return results, rejected


def empty_results() -> pl.DataFrame:
    """The canonical table with no rows (rounds with nothing ingested yet)."""
    return pl.DataFrame(schema=RESULTS_SCHEMA)


def empty_rejected() -> pl.DataFrame:
    """The rejected table with no rows."""
    return pl.DataFrame(schema=REJECTED_SCHEMA)


def summary_tables(
    content: bytes, *, release: str, repository: str, source_file: str, sha256: str
) -> tuple[pl.DataFrame, pl.DataFrame, str]:
    """Bytes of one summary file to (results, rejected, layout name).

    Raises:
        pipeline.extract.summary.SummaryFormatError: the file is not a summary at all.
    """
    from pipeline.extract.summary import parse_summary

    raw = parse_summary(content, release=release, file=source_file)
    results, rejected = normalise_summary(
        raw.frame.lazy(),
        fmt=raw.format,
        release=release,
        repository=repository,
        source_file=source_file,
        snapshot_sha256=sha256,
    )
    results_df, rejected_df = pl.collect_all([results, rejected])
    return results_df, rejected_df, raw.format
