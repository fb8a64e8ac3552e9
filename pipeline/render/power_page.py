"""The Power page: every power result, its efficiency, and perf/W across rounds.

Numbers come from ``pipeline.analysis.power`` (pure Polars). Offline and Server
power results are the run's average Watts, so the efficiency is the result divided
by them (Samples/s per W is samples per joule); SingleStream and MultiStream report
energy per query in millijoules, and the efficiency is queries per joule. Every value
links its upstream result (a result, its power and their quotient come from the same
result); a gain cites both of its ends. Every upstream string is escaped.
"""

from __future__ import annotations

import polars as pl

from pipeline.analysis.power import (
    MILLIJOULES,
    QUERIES_PER_JOULE,
    WATTS,
    power_gains,
    power_results,
)
from pipeline.labels import display_name
from pipeline.render import tables
from pipeline.render.escape import escape
from pipeline.render.site import GENERATED, Section, Site, notice, sorted_groups
from pipeline.render.slugs import anchor_of

PAGE = "power.md"
TITLE = "Power"
NAMED = ("release", "submitter", "system_name", "benchmark", "scenario", "division")
CHECKER = (
    "https://github.com/mlcommons/inference/blob/"
    "af2780c84e35417606fd7fccb7e4cd940a0acccf/tools/submission/submission_checker.py"
)

INTRO = f"""
A power submission measures the whole system's wall power while the benchmark runs.
What upstream reports depends on the scenario (the submission checker's
`get_power_metric`, [`tools/submission/submission_checker.py`]({CHECKER})):

* **Offline and Server**: the run's **average power** in {WATTS}. Performance per
  watt is the result divided by it: Samples/s per W (samples per joule), Queries/s
  per W, Tokens/s per W.
* **SingleStream and MultiStream**: the **energy per query** in {MILLIJOULES}; the
  result itself is a latency and is not divided by anything. Efficiency is
  {QUERIES_PER_JOULE} (1000 ÷ mJ per query); a MultiStream query carries 8 samples.

Efficiencies of different units, benchmarks or scenarios are not comparable, so each
table holds one benchmark and scenario. The efficiency and the gains are derived by
mlperf-ledger, not MLPerf results; every value links the result it comes from.
"""


def with_anchors(power: pl.DataFrame) -> pl.DataFrame:
    """``power`` with ``anchor``: one distinct target per benchmark and scenario.

    Names that fold alike ("Offline", "offline") get "-2", "-3", … in the order of
    their exact spelling, so every table keeps its own anchor.
    """
    keys = ["benchmark", "scenario"]
    base = pl.concat_str(
        pl.lit("power-"),
        anchor_of(pl.format("{}-{}", pl.col("benchmark"), pl.col("scenario"))),
    )
    anchors = (
        power.select(keys)
        .unique()
        .sort(keys)
        .with_columns(_base=base)
        .with_columns(
            _n=pl.int_range(1, pl.len() + 1).over("_base"),
            _of=pl.len().over("_base"),
        )
        .select(
            *keys,
            anchor=pl.when(pl.col("_of") == 1)
            .then(pl.col("_base"))
            .otherwise(pl.format("{}-{}", pl.col("_base"), pl.col("_n"))),
        )
    )
    return power.join(anchors, on=keys, how="left", nulls_equal=True)


def _value(value: str, unit: str) -> pl.Expr:
    """A number of ``row``, linked to its result, with its unit."""
    return pl.format(
        "{} {}",
        tables.external_link(
            tables.number(pl.col(value)),
            pl.col("result_url"),
            title=pl.col("result_key"),
        ),
        escape(pl.col(unit)),
    )


def result_cells(power: pl.DataFrame) -> pl.DataFrame:
    """Reader-facing cells of ``power_results`` rows."""
    return power.with_columns(
        c_round=escape(pl.col("release")),
        c_system=pl.concat_str(
            pl.format(
                "{} · {}<br><small>{} × {} · {}</small>",
                escape(pl.col("submitter")),
                escape(pl.col("system_name")),
                pl.col("total_accelerators").cast(pl.String).fill_null("?"),
                escape(pl.col("accelerator_name").fill_null("CPU only")),
                escape(pl.col("division")),
            ),
            tables.badges(
                pl.col("is_preview").fill_null(False),
                pl.col("is_inferred").fill_null(False),
            ),
        ),
        c_result=_value("result_value", "result_unit"),
        c_power=pl.format(
            "{}<br><small>{}</small>",
            _value("power_value", "power_unit"),
            escape(pl.col("power_kind").fill_null("unknown kind")),
        ),
        c_efficiency=pl.when(pl.col("efficiency").is_not_null())
        .then(_value("efficiency", "efficiency_unit"))
        .otherwise(
            pl.format(
                "—<br><small>{}</small>",
                escape(pl.col("efficiency_note").fill_null("not computed")),
            )
        ),
    )


RESULT_COLUMNS = {
    "c_round": "Round",
    "c_system": "System",
    "c_result": "Result",
    "c_power": "Power",
    "c_efficiency": "Efficiency",
}


def gain_cells(gains: pl.DataFrame) -> pl.DataFrame:
    """Reader-facing cells of ``power_gains`` rows, both ends linked."""

    def end(suffix: str) -> pl.Expr:
        def linked(column: str) -> pl.Expr:
            return tables.external_link(
                tables.number(pl.col(f"{column}_{suffix}")),
                pl.col(f"result_url_{suffix}"),
                title=pl.col(f"result_key_{suffix}"),
            )

        return pl.format(
            "<b>{}</b> {} {}<br><small>{} {} at {} {}</small>",
            escape(pl.col(f"release_{suffix}")),
            linked("efficiency"),
            escape(pl.col("efficiency_unit")),
            linked("result_value"),
            escape(pl.col("result_unit")),
            linked("power_value"),
            escape(pl.col("power_unit_label")),
        )

    return gains.with_columns(
        power_unit_label=pl.when(pl.col("efficiency_unit") == QUERIES_PER_JOULE)
        .then(pl.lit("mJ/query"))
        .otherwise(pl.lit("W"))
    ).with_columns(
        c_system=pl.format(
            "{} · {}<br><small>{} · {} · {}</small>",
            escape(pl.col("submitter")),
            escape(pl.col("system_name")),
            escape(pl.col("benchmark")),
            escape(pl.col("scenario")),
            escape(pl.col("division")),
        ),
        c_old=end("old"),
        c_new=end("new"),
        c_ratio=pl.when(pl.col("ratio").is_not_null())
        .then(tables.ratio(pl.col("ratio")))
        .otherwise(
            pl.format(
                "not compared<br><small>{}</small>",
                escape(pl.col("incompatibility_reason").fill_null("")),
            )
        ),
    )


GAIN_COLUMNS = {
    "c_system": "System · benchmark · scenario",
    "c_old": "Earlier round",
    "c_new": "Later round",
    "c_ratio": "Efficiency ratio",
}


def _results(n: int) -> str:
    return f"{n:,} result" if n == 1 else f"{n:,} results"


def render_power_page(site: Site, power: pl.DataFrame, gains: pl.DataFrame) -> str:
    """Write the page; returns its docs-relative path.

    Args:
        site: The render in progress.
        power: ``power_results`` rows (``POWER_SCHEMA``).
        gains: ``power_gains`` rows (``POWER_GAIN_SCHEMA``).
    """
    page = f"{GENERATED}/{PAGE}"
    power = with_anchors(
        power.with_columns(display_name(pl.col(c)).alias(c) for c in NAMED)
    )
    gains = gains.with_columns(
        display_name(pl.col(c)).alias(c) for c in NAMED if c in gains.columns
    )
    kinds = power.group_by("power_kind").len()
    counted = {k: n for k, n in kinds.iter_rows() if k is not None}
    releases = [r for r in site.releases if r in set(power["release"])]
    parts = [
        f"# {TITLE}\n",
        notice(page),
        INTRO,
    ]
    if power.height == 0:
        parts.append("\n_No result in the ledger reports power._\n")
        return site.write_page(PAGE, "\n".join(parts))
    usable = power.filter(pl.col("efficiency").is_not_null()).height
    average = counted.get("average power", 0)
    energy = counted.get("energy per query", 0)
    other = power.height - average - energy
    unusable = power.height - usable
    parts.append(
        f"\n{_results(power.height)} report power, in "
        f"{', '.join(escape(r) for r in releases)}: {average:,} as average power, "
        f"{energy:,} as energy per query"
        + (f", {other:,} in a unit of neither kind" if other else "")
        + f". {_results(usable)} {'has' if usable == 1 else 'have'} an efficiency"
        + (
            f"; {unusable:,} {'has' if unusable == 1 else 'have'} none (the table "
            "says why)"
            if unusable
            else ""
        )
        + ".\n"
    )
    summary = (
        power.group_by("benchmark", "scenario", "anchor")
        .agg(
            pl.len().alias("results"),
            pl.col("release").unique().sort().alias("releases"),
        )
        .sort("benchmark", "scenario", nulls_last=True)
        .with_columns(
            c_what=pl.format(
                "[{} · {}](#{})",
                escape(pl.col("benchmark")),
                escape(pl.col("scenario")),
                pl.col("anchor"),
            ),
            c_rounds=tables.joined("releases"),
            c_results=pl.col("results").cast(pl.String),
        )
    )
    parts += [
        "\n## Gains across rounds\n",
        "One system (same submitter, system name, accelerator and count) on one "
        "benchmark and scenario, from a round with power to the next round where it "
        "has power again: the later efficiency divided by the earlier (above 1×: "
        "more work per energy). Both ends are linked.\n",
    ]
    if gains.height:
        parts.append(
            tables.html_table(
                gain_cells(gains),
                GAIN_COLUMNS,
                numeric=("c_ratio",),
                wide=("c_old", "c_new"),
            )
        )
    else:
        parts.append(
            "_No system reports power in two rounds of the ledger: no gain can be "
            "computed yet._\n"
        )
    parts += [
        "\n## Power results\n",
        tables.markdown_table(
            summary,
            {
                "c_what": "Benchmark · scenario",
                "c_rounds": "Rounds",
                "c_results": "Results",
            },
            numeric=("c_results",),
        ),
    ]
    # Row-wise cells, formatted once for every table (not once per table).
    parts += site.sections(
        page,
        [
            Section(
                f"\n### {escape(benchmark)} · {escape(scenario)} "
                f"{{ #{group['anchor'][0]} }}\n",
                table=tables.html_table(
                    group,
                    RESULT_COLUMNS,
                    numeric=("c_result", "c_power", "c_efficiency"),
                    wide=("c_system",),
                ),
            )
            for (benchmark, scenario), group in sorted_groups(
                result_cells(power), ["benchmark", "scenario"], site.releases
            )
        ],
    )
    return site.write_page(PAGE, "\n".join(parts))


def build(site: Site) -> None:
    """The Power page from the site's results."""
    power = power_results(site.data.results.lazy()).collect()
    gains = power_gains(power.lazy()).collect()
    render_power_page(site, power, gains)
