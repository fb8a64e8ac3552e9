"""What a system family page shows of each system, as frames of table cells.

The layouts of ``system_pages``: per system (one identity across rounds,
``transform.systems``) its declared description per round with what changed from
the round before, the software-gain chain (system level) with each step's ratio,
and every result of every round linked to upstream, power where measured. Each is
built over every system at once (Polars, one query per kind of table) and comes
back as one typed cell per system (``tables.html_tables_by``), so a family page
only strings its systems' cells together.

Every declared string is hostile: cells are built through the safe layer
(``safe``, ``tables``) and escaped unless built so; result URLs pass ``safe_url``.
"""

from __future__ import annotations

import polars as pl

from pipeline.registry.system_fields import system_fields
from pipeline.render import safe
from pipeline.render.tables import (
    badges,
    deferred,
    external_link,
    group_cells,
    html_tables_by,
    number_cell,
    ratio_cell,
)

DECLARED_NOTE = (
    "The description is the submitter's declaration (its system JSON, or the "
    "round's summary where no system JSON was read), shown as declared: not "
    "measured or checked by MLCommons or by this site."
)
#: The per-system cells ``sections`` returns, besides the identity columns.
CELLS = ("c_described", "c_sources", "c_changes", "c_chain", "c_results")


def release_rank(releases: list[str]) -> pl.Expr:
    """Position of ``release`` in ``releases`` (version order); unknown last."""
    return pl.col("release").replace_strict(
        {r: i for i, r in enumerate(releases)}, default=len(releases),
        return_dtype=pl.Int32,
    )  # fmt: skip


def descriptions(
    systems: pl.DataFrame, fields: pl.DataFrame, releases: list[str]
) -> pl.DataFrame:
    """Per system and round, the declared fields in registry order (closed first)."""
    mapping = system_fields()
    order = {name: i for i, name in enumerate(mapping.fields)}
    labels = {name: spec.label for name, spec in mapping.fields.items()}
    place = ["release", "division", "submitter", "platform"]
    return (
        fields.lazy()
        .filter(
            pl.col("value").is_not_null() & (pl.col("value").str.strip_chars() != "")
        )
        .join(systems.lazy().select(*place, "system_id"), on=place, nulls_equal=True)
        .with_columns(
            _json=pl.when(pl.col("source_kind") == "system_json").then(0).otherwise(1),
            _field_rank=pl.col("field").replace_strict(
                order, default=len(order), return_dtype=pl.Int32
            ),
            label=pl.col("field")
            .replace_strict(labels, default=None, return_dtype=pl.String)
            .fill_null(pl.col("field_upstream")),
            _division=(pl.col("division") != "closed").cast(pl.Int8),
        )
        # One value per system, round and field: the system JSON's, closed first.
        .sort("_json", "_division", "field_order")
        .unique(["system_id", "release", "field"], keep="first", maintain_order=True)
        .with_columns(_release=release_rank(releases))
        .sort("system_id", "_release", "_field_rank", "field")
        .with_columns(
            previous=pl.col("value").shift(1).over(["system_id", "field"]),
            previous_release=pl.col("release").shift(1).over(["system_id", "field"]),
        )
        .with_columns(
            changed=pl.col("previous").is_not_null()
            & (pl.col("previous") != pl.col("value"))
        )
        .collect()
    )


def _declared_value(value: pl.Expr, changed: pl.Expr) -> safe.MdExpr:
    return safe.choose(
        [
            (value.is_null(), ""),
            (
                changed,
                safe.fmt(
                    '<mark title="changed from the round before">{}</mark> '
                    "<small>(changed)</small>",
                    value,
                ),
            ),
        ],
        safe.text(value),
    )


def description_tables(described: pl.DataFrame) -> pl.DataFrame:
    """Per system: its description as one table, a row per field, a column per round.

    Returns ``system_id``, ``c_described`` (the table) and ``c_sources`` (the file
    and sha256 each round's description was read from).
    """
    rounds = described.select("system_id", "release", "_release").unique()
    rounds = rounds.sort("system_id", "_release")
    names = described.group_by("system_id", "field").agg(
        pl.col("label").first(), pl.col("_field_rank").first()
    )
    grid = (
        names.join(rounds, on="system_id")
        .join(
            described.select("system_id", "field", "release", "value", "changed"),
            on=["system_id", "field", "release"],
            how="left",
        )
        .sort("system_id", "_field_rank", "field", "_release")
        .with_columns(
            c_td=safe.fmt(
                '<td data-label="{}">{}</td>',
                pl.col("release"),
                _declared_value(pl.col("value"), pl.col("changed").fill_null(False)),
            ).cell()
        )
    )
    cells = group_cells(grid, ["system_id", "_field_rank", "field"], "c_td")
    rows = cells.join(
        names.select("system_id", "field", "label"),
        on=["system_id", "field"],
        how="left",
        maintain_order="left",
    ).with_columns(
        c_tr=safe.fmt(
            '<tr><td data-label="Field">{}</td>{}</tr>',
            pl.col("label"),
            safe.col("c_td"),
        ).cell()
    )
    body = group_cells(rows, ["system_id"], "c_tr", "\n")
    head = group_cells(
        rounds.with_columns(c_th=safe.fmt("<th>{}</th>", pl.col("release")).cell()),
        ["system_id"],
        "c_th",
    )
    counted = names.group_by("system_id").len("_rows")
    # Its columns: "Field" and one per round that describes the system.
    columned = rounds.group_by("system_id").len("_rounds")
    tables = (
        body.join(head, on="system_id")
        .join(counted, on="system_id")
        .join(columned, on="system_id")
        .select(
            "system_id",
            c_described=deferred(
                safe.fmt(
                    "<table data-search-exclude>\n<thead><tr><th>Field</th>{}</tr>"
                    "</thead>\n<tbody>\n{}\n</tbody>\n</table>",
                    safe.col("c_th"),
                    safe.col("c_tr"),
                ),
                pl.col("_rows"),
                pl.col("_rounds") + 1,
            ).cell(),
        )
    )
    sources = (
        described.group_by("system_id", "release", maintain_order=True)
        .agg(
            pl.col("_release").first(),
            pl.col("source_file").first(),
            pl.col("snapshot_sha256").first().str.slice(0, 12).alias("sha"),
        )
        .sort("system_id", "_release")
        .with_columns(
            c_source=safe.fmt(
                "{} <code>{}</code> (sha256 {}…)",
                pl.col("release"),
                pl.col("source_file"),
                pl.col("sha"),
            ).cell()
        )
    )
    listed = group_cells(sources, ["system_id"], "c_source", "; ").rename(
        {"c_source": "c_sources"}
    )
    return tables.join(listed, on="system_id", how="left")


CHANGE_COLUMNS = {
    "c_rounds": "Rounds",
    "c_field": "Field",
    "c_old": "Before",
    "c_new": "After",
}


def change_tables(described: pl.DataFrame) -> pl.DataFrame:
    """Per system with a change: what its later round declares differently."""
    changed = described.filter("changed").with_columns(
        c_rounds=safe.fmt(
            "{} → {}", pl.col("previous_release"), pl.col("release")
        ).cell(),
        c_field=safe.text(pl.col("label")).cell(),
        c_old=safe.text(pl.col("previous")).cell(),
        c_new=safe.text(pl.col("value")).cell(),
    )
    return html_tables_by(
        changed, "system_id", CHANGE_COLUMNS, searchable=False, name="c_changes"
    )


CHAIN_COLUMNS = {
    "c_line": "Benchmark · scenario · division",
    "c_rounds": "Rounds",
    "c_ratio": "Ratio",
    "c_old": "Before",
    "c_new": "After",
}


def chain_tables(keyed: pl.DataFrame, gains: pl.DataFrame) -> pl.DataFrame:
    """Per system: its software-gain chain, later round over earlier, each step."""
    ids = keyed.select("result_key", "release", "system_id")

    def end(suffix: str) -> safe.MdExpr:
        return safe.fmt(
            "{} {}",
            external_link(
                number_cell(pl.col(f"result_value{suffix}")),
                pl.col(f"result_url{suffix}"),
            ),
            pl.col("result_unit"),
        )

    steps = (
        gains.filter(pl.col("identity_level") == "system")
        .join(
            ids.rename(
                {"result_key": "result_key_old", "release": "release_old",
                 "system_id": "_old"}
            ),
            on=["result_key_old", "release_old"],
        )
        .join(
            ids.rename({"result_key": "result_key_new", "release": "release_new"}),
            on=["result_key_new", "release_new"],
        )
        .filter(pl.col("_old") == pl.col("system_id"))
        .sort(
            "system_id", "benchmark", "scenario", "division", "release_old",
            "release_new", "result_key_old", "result_key_new",
        )
    )  # fmt: skip
    cells = steps.with_columns(
        c_line=safe.fmt(
            "{} · {}<br><small>{}</small>",
            pl.col("benchmark"),
            pl.col("scenario"),
            pl.col("division"),
        ).cell(),
        c_rounds=safe.concat(
            safe.fmt("{} → {}", pl.col("release_old"), pl.col("release_new")),
            safe.when(
                pl.col("is_consecutive").fill_null(False),
                "",
                safe.lit("<br><small>not consecutive</small>"),
            ),
        ).cell(),
        c_ratio=ratio_cell(pl.col("ratio")).cell(),
        c_old=end("_old").cell(),
        c_new=end("_new").cell(),
    )
    return html_tables_by(
        cells,
        "system_id",
        CHAIN_COLUMNS,
        numeric=("c_ratio",),
        searchable=False,
        name="c_chain",
    )


RESULT_COLUMNS = {
    "c_round": "Round",
    "c_what": "Benchmark · scenario",
    "c_value": "Result",
    "c_software": "Software",
}


def result_tables(keyed: pl.DataFrame, releases: list[str]) -> pl.DataFrame:
    """Per system: every result in every round, linked to upstream, power if any."""
    power = pl.col("power_value") if "power_value" in keyed.columns else None
    shown = keyed.filter(pl.col("system_id").is_not_null()).sort(
        "system_id", release_rank(releases), "benchmark", "scenario", "division",
        "result_key", nulls_last=True,
    )  # fmt: skip
    measured = (
        safe.when(
            power.is_not_null(),
            safe.fmt(
                "<br><small>power {} {}</small>",
                number_cell(power),
                pl.col("power_unit"),
            ),
            "",
        )
        if power is not None
        else safe.lit("")
    )
    cells = shown.with_columns(
        c_round=safe.fmt("{} · {}", pl.col("release"), pl.col("division")).cell(),
        c_what=safe.fmt("{} · {}", pl.col("benchmark"), pl.col("scenario")).cell(),
        c_value=safe.concat(
            external_link(number_cell(pl.col("result_value")), pl.col("result_url")),
            safe.fmt(" {}", pl.col("result_unit")),
            badges(pl.col("is_preview"), pl.col("is_inferred")),
            measured,
        ).cell(),
        c_software=safe.text(pl.col("software")).cell(),
    )
    return html_tables_by(
        cells,
        "system_id",
        RESULT_COLUMNS,
        numeric=("c_value",),
        searchable=False,
        name="c_results",
    )


def identities(keyed: pl.DataFrame, releases: list[str]) -> pl.DataFrame:
    """One row per system: its identity, names, rounds and result count, by id."""
    return (
        keyed.filter(pl.col("system_id").is_not_null())
        .sort(release_rank(releases), "result_key", nulls_last=True)
        .group_by("system_id", maintain_order=True)
        .agg(
            pl.col("system_page").first(),
            pl.col("submitter").first(),
            pl.col("platform").first(),
            pl.col("accelerator_label").first().alias("accelerator"),
            pl.col("total_accelerators").first(),
            pl.col("nodes").first(),
            pl.col("system_name")
            .drop_nulls()
            .unique(maintain_order=True)
            .alias("names"),
            pl.col("release").unique(maintain_order=True).alias("releases"),
            pl.len().alias("results"),
            pl.col("power_value").is_not_null().sum().alias("with_power")
            if "power_value" in keyed.columns
            else pl.lit(0, pl.UInt32).alias("with_power"),
        )
        .sort("system_page", "system_id")
    )


def sections(
    keyed: pl.DataFrame,
    systems: pl.DataFrame,
    fields: pl.DataFrame,
    gains: pl.DataFrame,
    releases: list[str],
) -> pl.DataFrame:
    """One row per system: its identity (``identities``) and its cells (``CELLS``).

    ``keyed``: results with ``system_id`` and ``system_page``
    (``system_ids.keyed_results``); ``systems``, ``fields``: the systems table and
    every declared field (``transform.systems``); ``gains``: every software gain.
    A system without a description, change or chain has a null cell there.
    """
    described = descriptions(systems, fields, releases)
    out = identities(keyed, releases)
    for part in (
        description_tables(described),
        change_tables(described),
        chain_tables(keyed, gains),
        result_tables(keyed, releases),
    ):
        out = out.join(part, on="system_id", how="left", maintain_order="left")
    return out
