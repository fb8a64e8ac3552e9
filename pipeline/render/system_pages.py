"""Systems: every system's declared description across rounds, loaded on demand.

One page (``PAGE``) lists every system (one row per identity, ``transform.systems``:
submitter, platform, accelerator, count, nodes) with an anchor per system, so any
page links a result to ``systems.md#<system_id>`` and MkDocs checks the link. The
description itself is one small JSON file per system (``DATA_DIR``), which the
page's script (``site/assets/js/systems.js``) fetches when the address names the
system and shows: the declared description per round with what changed between
rounds, every result in every round, the software-gain chain with each step's
ratio, and power where measured. A thousand systems cost a thousand small files,
never a thousand pages (build time and page budgets).

Every declared string is hostile: the page's cells go through ``escape``; the JSON
files carry the text as declared and the script inserts it with ``textContent``
only; result URLs pass ``safe_url``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import polars as pl

from pipeline.files import write_file
from pipeline.registry.system_fields import system_fields
from pipeline.render import safe
from pipeline.render.context import SYSTEMS_HREF
from pipeline.render.safe import Md, MdExpr
from pipeline.render.site_data import with_accelerators
from pipeline.render.tables import relative
from pipeline.transform.systems import with_system_id

if TYPE_CHECKING:
    from pipeline.render.context import Site

PAGE = "systems.md"
DATA_DIR = "systems"
FORMAT = "mlperf-ledger system v1"
SCRIPT = "assets/js/systems.js"
DECLARED_NOTE = (
    "The description is the submitter's declaration (its system JSON, or the "
    "round's summary where no system JSON was read), shown as declared: not "
    "measured or checked by MLCommons or by this site."
)


def link_of(page: str, system_id: str) -> str:
    """The link from ``page`` (docs-relative) to one system's description."""
    return f"{relative(page, f'generated/{PAGE}')}#{system_id}"


def system_link(suffix: str = "") -> MdExpr:
    """A link to the row's system description ("" where the row has no system id).

    Ids are lower-case letters, digits and hyphens (``transform.systems``), kept so.
    """
    system_id = pl.col(f"system_id{suffix}")
    return safe.when(
        system_id.is_not_null(),
        safe.fmt(
            '<a class="ledger-system-link" href="{}#{}">system description</a>',
            safe.lit(SYSTEMS_HREF),
            safe.ident(system_id),
        ),
        "",
    )


def with_system_ids(
    frame: pl.DataFrame, keyed: pl.DataFrame, *, suffix: str = ""
) -> pl.DataFrame:
    """``frame`` with ``system_id<suffix>``, found by its end's round and result key.

    ``keyed``: results with ``system_id`` (``keyed_results``).
    """
    release, key = f"release{suffix}", f"result_key{suffix}"
    if not {release, key} <= set(frame.columns) or "system_id" not in keyed.columns:
        return frame
    ids = keyed.select(
        pl.col("release").alias(release),
        pl.col("result_key").alias(key),
        pl.col("system_id").alias(f"system_id{suffix}"),
    ).unique([release, key], keep="first")
    return frame.drop(f"system_id{suffix}", strict=False).join(
        ids, on=[release, key], how="left", nulls_equal=True, maintain_order="left"
    )


def keyed_results(results: pl.DataFrame) -> pl.DataFrame:
    """Results with ``system_id`` (one identity across rounds) and labels.

    The id is computed from the canonical columns before any page default fills
    them in, exactly as ``out_mlperf__systems`` computes it.
    """
    return with_accelerators(with_system_id(results))


def _release_rank(releases: list[str]) -> pl.Expr:
    return pl.col("release").replace_strict(
        {r: i for i, r in enumerate(releases)}, default=len(releases),
        return_dtype=pl.Int32,
    )  # fmt: skip


def _descriptions(
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
        .with_columns(_release=_release_rank(releases))
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


def system_documents(
    results: pl.DataFrame,
    systems: pl.DataFrame,
    fields: pl.DataFrame,
    gains: pl.DataFrame,
    releases: list[str],
) -> dict[str, dict]:
    """Each system's JSON document, keyed by system id.

    Identity, each round's declared description, what changed between rounds,
    every result, the software-gain chain (system level) and power.
    """
    keyed = keyed_results(results)
    described = _descriptions(systems, fields, releases)
    rounds = described.group_by("system_id", "release", maintain_order=True).agg(
        pl.col("source_file").first(),
        pl.col("snapshot_sha256").first().alias("sha256"),
        pl.col("source_kind").first(),
        pl.struct("field", "label", "value", "source_file").alias("fields"),
    )
    changes = described.filter("changed").select(
        "system_id", pl.col("previous_release").alias("from"),
        pl.col("release").alias("to"), "field", "label",
        pl.col("previous").alias("old"), pl.col("value").alias("new"),
    )  # fmt: skip
    shown = keyed.with_columns(
        url=safe.chart_url(pl.col("result_url")),
        _release=_release_rank(releases),
    ).sort("_release", "benchmark", "scenario", "division", "result_key")
    result_rows = shown.select(
        "system_id", "release", "division", "benchmark", "scenario",
        pl.col("result_value").alias("value"), pl.col("result_unit").alias("unit"),
        pl.col("power_value").alias("power"), "power_unit", "system_name", "software",
        pl.col("result_key").alias("key"), "url",
    )  # fmt: skip
    ids = keyed.select("result_key", "release", "system_id")
    chain = (
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
            "benchmark", "scenario", "division", "release_old", "release_new",
            "result_key_old", "result_key_new",
        )  # fmt: skip
        .select(
            "system_id", "division", "benchmark", "scenario",
            pl.col("release_old").alias("from"), pl.col("release_new").alias("to"),
            "ratio", pl.col("is_consecutive").alias("consecutive"),
            pl.col("result_value_old").alias("old"),
            pl.col("result_value_new").alias("new"), "result_unit",
            "software_old", "software_new",
        )
    )  # fmt: skip
    identity = (
        keyed.sort(_release_rank(releases), "result_key", nulls_last=True)
        .group_by("system_id", maintain_order=True)
        .agg(
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
        )
    )
    parts = {
        "rounds": rounds,
        "changes": changes,
        "results": result_rows,
        "gains": chain,
    }
    # Rows of each system as one list column, converted to Python in one call (a
    # partition and a conversion per system was most of this function).
    grouped = {}
    for name, frame in parts.items():
        lists = frame.group_by("system_id", maintain_order=True).agg(
            pl.struct(pl.exclude("system_id")).alias("rows")
        )
        grouped[name] = dict(
            zip(lists["system_id"].to_list(), lists["rows"].to_list(), strict=True)
        )
    documents = {}
    for row in identity.to_dicts():
        system_id = row.pop("system_id")
        documents[system_id] = {
            "format": FORMAT,
            "id": system_id,
            **row,
            "declared_note": DECLARED_NOTE,
            **{name: grouped[name].get(system_id, []) for name in parts},
        }
    return documents


def index_rows(documents: dict[str, dict]) -> list[str]:
    """One table row per system, its anchor the system id (cells escaped).

    Kept small: the page lists every system of every round under the 300 KB
    HTML budget; the name links the row's own anchor, which opens the description.
    """
    rows = []
    for system_id, doc in sorted(
        documents.items(), key=lambda item: (item[1]["submitter"] or "", item[0])
    ):
        names = doc["names"]
        nodes = doc["nodes"] or 1
        rows.append(
            Md(
                '<tr id="{id}"><td>{submitter}</td>'
                '<td><a href="#{id}">{name}</a>{more}<br>'
                "<code>{platform}</code></td>"
                "<td>{count} × {accelerator} · {nodes}</td>"
                "<td>{releases}</td><td>{results}</td></tr>"
            ).format(
                id=safe.name(system_id),
                submitter=doc["submitter"] or "",
                name=names[-1] if names else doc["platform"] or "unnamed",
                more=f" (+{len(names) - 1} names)" if len(names) > 1 else "",
                platform=doc["platform"] or "",
                count=doc["total_accelerators"] or "?",
                accelerator=doc["accelerator"] or "",
                nodes=nodes,
                releases=Md(" ").join(doc["releases"]),
                results=f"{len(doc['results']):,}",
            )
        )
    return rows


def systems_page(documents: dict[str, dict]) -> str:
    """The page: what a description is, the view's container and the index."""
    base = f"generated/{PAGE}"
    source = relative(base, f"generated/{DATA_DIR}") + "/"
    # A plain table in a classed box: the theme gives it the scroll box and sticky
    # header of every table, and on a phone it stacks into cards like the rest.
    table = (
        '<div class="ledger-systems__index" data-search-exclude><table>'
        "<thead><tr><th>Submitter</th><th>System (newest name) and platform</th>"
        "<th>Accelerators · nodes</th><th>Rounds</th><th>Results</th></tr>"
        "</thead><tbody>" + "".join(index_rows(documents)) + "</tbody></table></div>"
    )
    return f"""---
title: Systems
search:
  exclude: true
---

# Systems

Every system in the ledger, followed across rounds: one system is one submitter's
platform (upstream's system folder) with the same accelerator, accelerator count
and node count, the identity the software gains pair on; its declared names may
vary. **{len(documents):,}** systems. Choose a system's name to see what the
submitter declared in each round (what changed from the round before is marked),
every result it has in every round, its software-gain chain with each step's ratio,
and power where it was measured.

!!! note "Declared, not measured"
    {DECLARED_NOTE}

<div id="ledger-systems" class="ledger-systems" data-source="{source}">
<section class="ledger-systems__view" aria-live="polite" hidden></section>
<noscript>The description view needs JavaScript; every field is in the
<code>systems</code> and <code>system_fields</code> downloads on the Data page.
</noscript>
</div>

{table}
"""


def build(site: Site) -> None:
    """The Systems page and one JSON per system (``pages.PAGE_BUILDERS``)."""
    from pipeline.transform.systems import DECLARED_SCHEMA, SYSTEMS_SCHEMA

    data = site.data
    # Written without descriptions too: the Explorer and other pages link here.
    systems = (
        data.systems
        if data.systems is not None
        else pl.DataFrame(schema=SYSTEMS_SCHEMA)
    )
    fields = (
        data.system_fields
        if data.system_fields is not None
        else pl.DataFrame(schema=DECLARED_SCHEMA)
    )
    documents = system_documents(
        data.results, systems, fields, data.gains, site.releases
    )
    folder = site.out_dir / DATA_DIR
    for system_id, document in documents.items():
        text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
        site.written.append(write_file(folder / f"{system_id}.json", text))
    site.write_page(PAGE, systems_page(documents))
