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
from pipeline.render import safe, tables
from pipeline.render.context import GENERATED, notice, sorted_groups
from pipeline.render.model import Model
from pipeline.render.safe import Md, MdExpr, md_join
from pipeline.render.slugs import anchor_of
from pipeline.render.spec import Draft, PageSpec, Rendered, Section

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


def _value(value: str, unit: str) -> MdExpr:
    """A number of ``row``, linked to its result, with its unit."""
    return safe.fmt(
        "{} {}",
        tables.external_link(
            tables.number_cell(pl.col(value)),
            pl.col("result_url"),
            title=pl.col("result_key"),
        ),
        pl.col(unit),
    )


def result_cells(power: pl.DataFrame) -> pl.DataFrame:
    """Reader-facing cells of ``power_results`` rows."""
    return power.with_columns(
        c_round=pl.col("release"),
        c_system=safe.concat(
            safe.fmt(
                "{} · {}<br><small>{} × {} · {}</small>",
                pl.col("submitter"),
                pl.col("system_name"),
                pl.col("total_accelerators").cast(pl.String).fill_null("?"),
                pl.col("accelerator_name").fill_null("CPU only"),
                pl.col("division"),
            ),
            tables.badges(
                pl.col("is_preview").fill_null(False),
                pl.col("is_inferred").fill_null(False),
            ),
        ).cell(),
        c_result=_value("result_value", "result_unit").cell(),
        c_power=safe.fmt(
            "{}<br><small>{}</small>",
            _value("power_value", "power_unit"),
            pl.col("power_kind").fill_null("unknown kind"),
        ).cell(),
        c_efficiency=safe.when(
            pl.col("efficiency").is_not_null(),
            _value("efficiency", "efficiency_unit"),
            safe.fmt(
                "—<br><small>{}</small>",
                pl.col("efficiency_note").fill_null("not computed"),
            ),
        ).cell(),
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

    def end(suffix: str) -> MdExpr:
        def linked(column: str) -> MdExpr:
            return tables.external_link(
                tables.number_cell(pl.col(f"{column}_{suffix}")),
                pl.col(f"result_url_{suffix}"),
                title=pl.col(f"result_key_{suffix}"),
            )

        return safe.fmt(
            "<b>{}</b> {} {}<br><small>{} {} at {} {}</small>",
            pl.col(f"release_{suffix}"),
            linked("efficiency"),
            pl.col("efficiency_unit"),
            linked("result_value"),
            pl.col("result_unit"),
            linked("power_value"),
            pl.col("power_unit_label"),
        )

    return gains.with_columns(
        power_unit_label=pl.when(pl.col("efficiency_unit") == QUERIES_PER_JOULE)
        .then(pl.lit("mJ/query"))
        .otherwise(pl.lit("W"))
    ).with_columns(
        c_system=safe.fmt(
            "{} · {}<br><small>{} · {} · {}</small>",
            pl.col("submitter"),
            pl.col("system_name"),
            pl.col("benchmark"),
            pl.col("scenario"),
            pl.col("division"),
        ).cell(),
        c_old=end("old").cell(),
        c_new=end("new").cell(),
        c_ratio=safe.when(
            pl.col("ratio").is_not_null(),
            tables.ratio_cell(pl.col("ratio")),
            safe.fmt(
                "not compared<br><small>{}</small>",
                pl.col("incompatibility_reason").fill_null(""),
            ),
        ).cell(),
    )


GAIN_COLUMNS = {
    "c_system": "System · benchmark · scenario",
    "c_old": "Earlier round",
    "c_new": "Later round",
    "c_ratio": "Efficiency ratio",
}


def _results(n: int) -> str:
    return f"{n:,} result" if n == 1 else f"{n:,} results"


def render_power_page(
    model: Model, draft: Draft, power: pl.DataFrame, gains: pl.DataFrame
) -> str:
    """Write the page; returns its docs-relative path.

    Args:
        model: The render's model (its releases).
        draft: Where the page and its charts are drafted.
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
    releases = [r for r in model.releases if r in set(power["release"])]
    parts = [
        Md("# {}\n").format(TITLE),
        notice(page),
        INTRO,
    ]
    if power.height == 0:
        parts.append("\n_No result in the ledger reports power._\n")
        return draft.page(PAGE, "\n".join(parts))
    usable = power.filter(pl.col("efficiency").is_not_null()).height
    average = counted.get("average power", 0)
    energy = counted.get("energy per query", 0)
    other = power.height - average - energy
    unusable = power.height - usable
    parts.append(
        Md(
            "\n{} report power, in {}: {:,} as average power, {:,} as energy per "
            "query{}. {} {} an efficiency{}.\n"
        ).format(
            _results(power.height),
            md_join(", ", releases),
            average,
            energy,
            Md(", {:,} in a unit of neither kind").format(other) if other else "",
            _results(usable),
            "has" if usable == 1 else "have",
            Md("; {:,} {} none (the table says why)").format(
                unusable, "has" if unusable == 1 else "have"
            )
            if unusable
            else "",
        )
    )
    summary = (
        power.group_by("benchmark", "scenario", "anchor")
        .agg(
            pl.len().alias("results"),
            pl.col("release").unique().sort().alias("releases"),
        )
        .sort("benchmark", "scenario", nulls_last=True)
        .with_columns(
            c_what=safe.fmt(
                "[{} · {}](#{})",
                pl.col("benchmark"),
                pl.col("scenario"),
                safe.ident(pl.col("anchor")),
            ).cell(),
            c_rounds=tables.joined("releases").cell(),
            c_results=pl.col("results"),
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
    parts += draft.sections(
        page,
        [
            Section(
                Md("\n### {} · {} {{ {} }}\n").format(
                    benchmark, scenario, safe.path("#" + group["anchor"][0])
                ),
                table=tables.html_table(
                    group,
                    RESULT_COLUMNS,
                    numeric=("c_result", "c_power", "c_efficiency"),
                    wide=("c_system",),
                ),
            )
            for (benchmark, scenario), group in sorted_groups(
                result_cells(power), ["benchmark", "scenario"], model.releases
            )
        ],
    )
    return draft.page(PAGE, "\n".join(parts))


def _draft(model: Model, draft: Draft) -> None:
    """The Power page from the site's results."""
    power = power_results(model.data.results.lazy()).collect()
    gains = power_gains(power.lazy()).collect()
    render_power_page(model, draft, power, gains)


def render(model: Model) -> Rendered:
    """The Power page, from the results that report power."""
    draft = Draft()
    _draft(model, draft)
    return draft.done()


def specs(model: Model) -> list[PageSpec]:
    """The Power page, from the results that report power."""
    return [PageSpec("power", render, {"model": model})]
