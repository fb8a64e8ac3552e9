"""Systems: one page per system family, a section per system, and the systems list.

A system is one identity across rounds (``transform.systems``: submitter, platform,
accelerator, count, nodes). Each system has a section on its family's page
(``system_ids.families``: a submitter's systems, split by accelerator or platform
where one page would outgrow the page budget), headed by its name with the system
id as the heading's id, so every page links a result to
``systems/<family>.md#<system_id>`` and site search finds the system by its heading.
A section is readable without JavaScript: the declared description per round with
what changed between rounds, the software-gain chain with each step's ratio, and
every result of every round linked to upstream, power where measured
(``system_views`` builds the cells, once for every system).

The list (``PAGE``) keeps one row per system, its id the system id, linking the
system's section; a small script, loaded by this page only, filters the
rows as the reader types and takes an old address ``systems.html#<id>`` on to the
section (``site/assets/js/systems.js``, which ``mkdocs/hooks.py`` puts at the end
of this page's article only). Without JavaScript the whole list shows.

Every declared string is hostile: cells and headings go through the safe layer.
"""

from __future__ import annotations

import polars as pl

from pipeline.render import safe, system_views
from pipeline.render.context import METHODOLOGY
from pipeline.render.model import Model
from pipeline.render.safe import Md, md_join
from pipeline.render.spec import Draft, PageSpec, Rendered
from pipeline.render.system_ids import FOLDER, PAGE, families
from pipeline.render.system_views import DECLARED_NOTE
from pipeline.render.tables import group_cells, number, relative

#: Identity columns of a system (``system_views.identities``) the list shows.
LISTED = (
    "system_id", "system_page", "family", "submitter", "platform", "accelerator",
    "total_accelerators", "nodes", "names", "releases", "results",
)  # fmt: skip


def _chips(row: dict) -> Md:
    count, accelerator = row["total_accelerators"], row["accelerator"] or ""
    if not count:
        return Md.escape(accelerator or "no accelerator declared")
    return Md("{} × {}").format(count, accelerator)


def _name(row: dict) -> str:
    names = row["names"] or []
    return names[-1] if names else row["platform"] or "unnamed system"


def _lead(title: str, text: Md | None = None) -> Md:
    """A part's lead-in paragraph: kept out of site search (the heading finds it)."""
    return Md("\n<p data-search-exclude><strong>{}</strong> {}</p>\n").format(
        title, text or ""
    )


def _section(row: dict) -> list[str]:
    """One system's section: heading (its id the system id), identity, tables."""
    nodes = row["nodes"] or 1
    names = row["names"] or []
    rounds = row["releases"] or []
    parts = [
        Md("\n## {} · {} {{ #{} .ledger-system }}\n").format(
            _name(row), _chips(row), safe.name(row["system_id"])
        ),
        Md(
            "\n**{}** · platform <code>{}</code> · {} · {} node(s) · {:,} result(s) "
            "in {} ({}). Declared names: {}.\n"
        ).format(
            row["submitter"],
            row["platform"],
            _chips(row),
            nodes,
            row["results"],
            "one round" if len(rounds) == 1 else f"{len(rounds)} rounds",
            md_join(", ", rounds),
            md_join(" · ", names) if names else Md("none"),
        ),
    ]
    if row["c_described"] is None:
        parts.append(
            _lead(
                "Declared description by round.",
                Md(
                    "No description was read for this system (no system JSON, and "
                    "no summary declaring one)."
                ),
            )
        )
    else:
        parts += [
            _lead(
                "Declared description by round.",
                Md("Read from {}.").format(safe.cell_value(row["c_sources"])),
            ),
            safe.cell_value(row["c_described"]),
        ]
        if row["c_changes"] is not None:
            parts += [
                _lead("What changed between its rounds."),
                safe.cell_value(row["c_changes"]),
            ]
        elif len(rounds) > 1:
            parts.append(
                _lead(
                    "What changed between its rounds.",
                    Md("Nothing both of its described rounds declare changed."),
                )
            )
    if row["c_chain"] is None:
        parts.append(
            _lead(
                "Software-gain chain.",
                Md(
                    "No software-gain pair: this system has no comparable result "
                    "in two rounds."
                ),
            )
        )
    else:
        parts += [
            _lead(
                "Software-gain chain.",
                Md(
                    "The same system, a later round over an earlier one: derived, "
                    "unofficial ratios of two published results."
                ),
            ),
            safe.cell_value(row["c_chain"]),
        ]
    measured = row["with_power"] or 0
    parts += [
        _lead(
            "Every result, every round.",
            Md("{:,} result(s); {}.").format(
                row["results"],
                "no power measured"
                if not measured
                else Md("{:,} with power measured").format(measured),
            ),
        ),
        safe.cell_value(row["c_results"]),
    ]
    return parts


def render_family(
    name: str, title: str, systems: pl.DataFrame, methodology: str
) -> Rendered:
    """One family's page: a section per system (``systems``: rows of ``sections``)."""
    draft = Draft()
    rel = f"{FOLDER}/{name}.md"
    page = f"generated/{rel}"
    results = int(systems["results"].sum())
    parts = [
        Md("# {}: systems\n").format(title),
        Md(
            "\n{:,} system(s) with {:,} result(s). A system is one submitter's "
            "platform with the same accelerator, accelerator count and node count "
            "across rounds (the identity software gains pair on); the "
            "[list of every system]({}) finds any other, the "
            "[methodology]({}) says how each number is read.\n"
        ).format(
            systems.height,
            results,
            relative(page, f"generated/{PAGE}"),
            relative(page, methodology),
        ),
        Md('\n!!! note "Declared, not measured"\n    {}\n').format(DECLARED_NOTE),
    ]
    for row in systems.iter_rows(named=True):
        parts += _section(row)
    return draft.done(draft.page(rel, "\n".join(parts)))


def _index_tables(systems: pl.DataFrame, page: str) -> Md:
    """The systems list: per submitter a table, per system a row linking its section.

    A row's id is the system id. Each submitter's table is folded under its name
    (``<details>``; the filter opens those it matches): a phone styles ~100 names,
    not ~700 rows (the list's load was 4 s of main-thread work in Lighthouse's
    phone profile). Deferring the tables off screen instead made their links
    "obscured" to accessibility checkers, which cannot hit-test skipped blocks.
    One query over every system (escaped through ``safe``), not a loop over rows.
    """
    # Raw HTML: MkDocs does not rewrite ".md" here, so the link names the HTML.
    folder = str(relative(page, f"generated/{FOLDER}/x.html"))[: -len("x.html")]
    names = pl.col("names").fill_null([])
    count = pl.col("total_accelerators")
    accelerator = pl.col("accelerator").fill_null("")
    row = safe.fmt(
        '<tr id="{}"><td><a href="{}#{}">{}</a>{}<br><code>{}</code></td>'
        "<td>{} · {}</td><td>{}</td><td>{}</td></tr>",
        safe.ident(pl.col("system_id")),
        safe.href(pl.concat_str(pl.lit(folder), "system_page", pl.lit(".html"))),
        safe.ident(pl.col("system_id")),
        pl.coalesce(names.list.last(), pl.col("platform"), pl.lit("unnamed system")),
        pl.when(names.list.len() > 1)
        .then(pl.format(" (+{} names)", names.list.len() - 1))
        .otherwise(pl.lit("")),
        pl.col("platform").fill_null(""),
        pl.when(count.fill_null(0) > 0)
        .then(pl.format("{} × {}", count, accelerator))
        .otherwise(
            pl.when(accelerator != "")
            .then(accelerator)
            .otherwise(pl.lit("no accelerator declared"))
        ),
        safe.numeric(pl.col("nodes").fill_null(1)),
        safe.each("releases", " "),
        safe.numeric(number(pl.col("results").cast(pl.Float64))),
    )
    ordered = systems.sort("submitter", "system_id", nulls_last=True).with_columns(
        pl.col("submitter").fill_null(""), pl.col("releases").fill_null([])
    )
    rows = ordered.select("submitter", row.cell("row"))
    groups = group_cells(rows, ["submitter"], "row", "\n").join(
        rows.group_by("submitter").len("systems"), on="submitter", maintain_order="left"
    )
    table = safe.fmt(
        '<details class="ledger-more ledger-systems__group"><summary><strong>{}'
        "</strong> · {} {}</summary><table><thead><tr>"
        "<th>System (newest name) and platform</th><th>Accelerators · nodes</th>"
        "<th>Rounds</th><th>Results</th></tr></thead><tbody>\n{}\n</tbody>"
        "</table></details>",
        pl.col("submitter"),
        safe.numeric(pl.col("systems")),
        pl.when(pl.col("systems") == 1)
        .then(pl.lit("system"))
        .otherwise(pl.lit("systems")),
        safe.col("row"),
    )
    return md_join("\n", safe.values(groups, table))


def render_index(systems: pl.DataFrame) -> Rendered:
    """The systems list, its filter, and the family pages in the page index."""
    draft = Draft()
    page = f"generated/{PAGE}"
    pages = dict(systems.select("family", "system_page").unique().iter_rows())
    draft.index(FOLDER, {title: f"{FOLDER}/{name}.md" for title, name in pages.items()})
    # A plain table in a classed box: the theme gives it the scroll box and sticky
    # header of every table; the filter hides rows (never removes them).
    table = Md(
        '<div class="ledger-systems__index" data-search-exclude>\n{}\n</div>'
    ).format(_index_tables(systems, page))
    text = f"""---
title: Systems
search:
  exclude: true
---

# Systems

Every system in the ledger, followed across rounds: one system is one submitter's
platform (upstream's system folder) with the same accelerator, accelerator count
and node count, the identity the software gains pair on; its declared names may
vary. **{systems.height:,}** systems on **{len(pages):,}** pages, one per submitter
(a submitter with many results has one per accelerator, or per platform). Choose a
system's name for what the submitter declared in each round (what changed from the
round before is marked), every result it has in every round, its software-gain
chain with each step's ratio, and power where it was measured.

<form class="ledger-systems__filter" role="search" hidden>
<label for="ledger-systems-filter">Filter the systems</label>
<input id="ledger-systems-filter" type="search" autocomplete="off"
placeholder="submitter, name, platform, accelerator, round">
<output for="ledger-systems-filter" aria-live="polite"></output>
</form>

{table}
"""
    draft.page(PAGE, text)
    return draft.done()


def specs(model: Model) -> list[PageSpec]:
    """The systems list and one page per system family (``pages.PAGE_MODULES``)."""
    from pipeline.transform.systems import DECLARED_SCHEMA, SYSTEMS_SCHEMA

    data = model.data
    # Written without descriptions too: every result still has its system.
    systems = data.systems
    if systems is None:
        systems = pl.DataFrame(schema=SYSTEMS_SCHEMA)
    fields = data.system_fields
    if fields is None:
        fields = pl.DataFrame(schema=DECLARED_SCHEMA)
    releases = list(model.releases)
    sections = system_views.sections(
        model.results, systems, fields, data.gains, releases
    ).join(
        families(model.results).select("system_id", "family"),
        on="system_id",
        how="left",
    )
    out = [
        PageSpec(
            "systems",
            render_index,
            {"systems": sections.select(LISTED)},
        )
    ]
    for (name,), group in sections.partition_by(
        "system_page", as_dict=True, maintain_order=True
    ).items():
        inputs = {
            "name": name,
            "title": group["family"][0],
            "systems": group.drop("family", "system_page"),
            "methodology": METHODOLOGY,
        }
        out.append(PageSpec("system-family", render_family, inputs, cached=True))
    return out
