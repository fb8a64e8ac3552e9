"""Small helpers every page module shares: notices, links, orders, counts, chips.

Nothing here writes or keeps state: pages read the model (``model``), draft their
output (``spec``) and the engine (``engine``) writes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

import polars as pl

from pipeline.render import safe
from pipeline.render.safe import Md, MdExpr
from pipeline.render.site_data import (
    is_accelerator_type,
)
from pipeline.render.spec import GENERATED
from pipeline.render.tables import (
    DERIVED_NOTICE,
    relative,
)
from pipeline.transform.results import DIVISIONS, SCENARIOS


class Ledger(Protocol):
    """What ``new_in`` reads of the model (``model.Model``): results and releases."""

    results: pl.DataFrame
    releases: Sequence[str]


#: Entity kind -> entity name -> its page under GENERATED (``slugs.page_problems``).
PAGE_INDEX = "partials/pages.json"
#: Nav section (its index page) -> its children, read by ``mkdocs.hooks``.
NAV_FILE = "partials/nav.json"
METHODOLOGY = "methodology.md"
#: Why one page per entity (benchmark, accelerator, a benchmark's pairs, a release's
#: benchmark) is linked from its section's index page and not listed in the nav:
#: Material renders every sibling of the page being read, so the 186 benchmark pages
#: carried 186 nav links each, and one new benchmark changed the HTML of all of them
#: (a new round rebuilt 458 of 822 pages for 57 changed ones). The nav keeps the
#: sections whose children are few and bounded: the rounds, the interactive
#: benchmarks.
ENTITY_PAGES = ("benchmarks", "accelerators", "software-gains", "generations",
                "scaling", "releases/<round>")  # fmt: skip
#: Stands for the address of the system family pages' folder (with its slash) in
#: cells computed once for pages at several depths (``system_ids.system_link``);
#: ``Writer.write_page`` makes it relative to the page it writes.
SYSTEMS_HREF = "ledger:systems-folder/"
SYSTEMS_FOLDER = f"{GENERATED}/systems"
GROUP = ["benchmark", "scenario", "division"]


def notice(page: str) -> str:
    """The "derived, unofficial" notice, linking Methodology from ``page``."""
    return DERIVED_NOTICE.format(methodology=relative(page, METHODOLOGY))


def page_link(page: str, rel: str) -> str:
    """Link from ``page`` to the generated page ``rel``."""
    return relative(page, f"{GENERATED}/{rel}")


def release_index(releases: list[str]) -> pl.Expr:
    """Position of ``release`` in version order (null when not listed)."""
    order = {r: i for i, r in enumerate(releases)}
    return pl.col("release").replace_strict(order, default=None, return_dtype=pl.Int32)


def new_in(
    site: Ledger, release: str, column: str, label: str | None = None
) -> list[str]:
    """Values of ``column`` whose first appearance in the ledger is ``release``."""
    rows = site.results.filter(pl.col(column).is_not_null())
    if column == "accelerator_id":
        rows = rows.filter(is_accelerator_type())
    label = label or column
    firsts = (
        rows.with_columns(index=release_index(site.releases))
        .group_by(column)
        .agg(pl.col("index").min(), pl.col(label).first().alias("label"))
    )
    position = site.releases.index(release)
    return sorted(firsts.filter(pl.col("index") == position)["label"].to_list())


def sorted_groups(
    frame: pl.DataFrame, by: list[str], releases: list[str] | None = None
) -> list[tuple[tuple, pl.DataFrame]]:
    """Partitions of ``frame`` in reading order.

    Scenarios and divisions follow MLPerf's order, releases their version order, other
    values sort alphabetically.
    """
    if frame.height == 0:
        return []
    known = {"scenario": SCENARIOS, "division": DIVISIONS}

    def rank(column: str, value: object) -> tuple[int, str]:
        listed = known.get(column) or (releases if column.startswith("release") else ())
        if listed and value in listed:
            return (list(listed).index(value), "")
        return (len(listed or ()), str(value))

    parts = frame.partition_by(by, as_dict=True, maintain_order=True)
    return sorted(
        parts.items(),
        key=lambda item: tuple(rank(c, v) for c, v in zip(by, item[0], strict=True)),
    )


def mlperf_ranks() -> dict[str, pl.Expr]:
    """``scenario_rank`` and ``division_rank``: MLPerf's order, unknown values last."""
    return {
        f"{column}_rank": pl.col(column).replace_strict(
            {v: i for i, v in enumerate(order)},
            default=len(order),
            return_dtype=pl.Int32,
        )
        for column, order in (("scenario", SCENARIOS), ("division", DIVISIONS))
    }


def numbers_block(items: Iterable[tuple[int, str | Md]]) -> Md:
    """A row of big numbers with labels ("409 results")."""
    cells = Md("").join(
        Md("<div><strong>{:,}</strong>{}</div>").format(n, label) for n, label in items
    )
    return Md('\n<div class="ledger-numbers">{}</div>\n').format(cells)


def chips(total: str, name: str, nodes: str) -> MdExpr:
    """The chip count every comparison states: "8 × AMD Instinct MI300X · 1 node".

    A system without accelerators is "CPU only · 1 node", not "0 × CPU only".
    """
    count = pl.col(nodes).fill_null(1)
    nodes_text = safe.fmt(
        "{} {}",
        count.cast(pl.String),
        pl.when(count == 1).then(pl.lit("node")).otherwise(pl.lit("nodes")),
    )
    return safe.when(
        pl.col(name).is_null(),
        safe.fmt("CPU only · {}", nodes_text),
        safe.fmt(
            "{} × {} · {}",
            pl.col(total).cast(pl.String).fill_null("?"),
            pl.col(name),
            nodes_text,
        ),
    )


def output_folder(out_dir: Path) -> Path:
    """The generated folder, made if missing; what it holds is kept until ``prune``.

    Only a folder named ``generated`` is accepted: the render removes whatever it
    did not write there.
    """
    if out_dir.name != GENERATED:
        raise ValueError(
            f"render_site writes into a folder named {GENERATED!r}: {out_dir}"
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir
