"""The home page body: the latest release in numbers and the headline derived metrics.

``site/index.md`` includes ``generated/partials/home.md`` with pymdownx.snippets.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import polars as pl

from pipeline.render import charts, history_views
from pipeline.render.context import (
    new_in,
    notice,
    numbers_block,
    page_link,
)
from pipeline.render.model import Model
from pipeline.render.pair_views import (
    GAINS,
    GENERATIONS,
    SCALING,
    PairPage,
    compare_by,
    definition_block,
    headline_numbers,
    latest_pairs,
    one_per_system,
    pair_table,
)
from pipeline.render.release_views import release_stats
from pipeline.render.safe import Md, md_join
from pipeline.render.site_data import (
    release_order,
)
from pipeline.render.spec import Draft, PageSpec, Rendered
from pipeline.render.whats_new import whats_new

#: Rows of each headline table on the home page.
HEADLINE_ROWS = 5


@dataclass(frozen=True)
class _Headline:
    """One derived metric on the home page."""

    spec: PairPage
    chart: Callable[[pl.DataFrame], tuple[charts.Spec, pl.DataFrame]]
    caption: str


def _strip_chart(kind: str, title: str, ends: tuple[str, str]) -> Callable:
    compare, compare_title = compare_by(kind)
    return lambda p: charts.ratio_strip_chart(
        p, title=title, ends=ends, compare=compare, compare_title=compare_title
    )


HEADLINES = (
    _Headline(
        GAINS,
        _strip_chart(
            "gains", "Software gains into the latest release", ("older", "newer")
        ),
        "Software gains into the latest release, by benchmark",
    ),
    _Headline(
        GENERATIONS,
        _strip_chart(
            "generations",
            "Generation ratios in the latest release",
            ("predecessor", "successor"),
        ),
        "Successor over predecessor accelerator in the latest release, by benchmark",
    ),
    _Headline(
        SCALING,
        lambda p: charts.efficiency_chart(
            p,
            title="Scaling efficiency in the latest release",
            compare=compare_by("scaling")[0],
        ),
        "Scaling efficiency against the growth in accelerator count",
    ),
)


def _headline(draft: Draft, page: str, item: _Headline, pairs: pl.DataFrame) -> str:
    """A sentence, its definition, a chart with a static SVG fallback, the top rows.

    Everything here comes from the strictest, unflagged pairs (``is_headline``) of
    the newest release that has any; the detail page keeps every pair, flagged ones
    with a badge and the reason.
    """
    spec = item.spec
    target = page_link(page, spec.rel)
    shown = latest_pairs(pairs.filter("is_headline")) if pairs.height else pairs
    parts = [Md("\n### {}\n").format(spec.title)]
    if shown.height == 0:
        parts.append(
            Md(
                "No {} at the strictest reading without a plausibility warning. "
                "[All pairs]({})\n"
            ).format(spec.noun, target)
        )
        return "\n".join(parts)
    release = shown["release_new"].first()
    if spec.kind == "gains":
        olds = ", ".join(release_order(shown["release_old"].unique()))
        scope = f"{olds} → {release}"
    else:
        scope = str(release)
    others = pairs.filter(pl.col("release_new") == release).height - shown.height
    more = (
        Md(
            " {:,} more pair(s) into {}, at looser readings, across a round the "
            "system also has, or with a plausibility warning, are on the detail page."
        ).format(others, str(release))
        if others
        else ""
    )
    parts += [
        Md("{:,} {} ({}): {}.{}\n").format(
            shown.height, spec.noun, scope, headline_numbers(spec.kind, shown), more
        ),
        definition_block(spec),
        draft.chart(page, item.chart(shown), f"home-{spec.stem}", item.caption),
        Md("The {} largest, one per system:\n").format(HEADLINE_ROWS),
        pair_table(
            one_per_system(shown),
            spec.ends,
            with_efficiency=spec.kind == "scaling",
            limit=HEADLINE_ROWS,
        ),
        Md("[All {} →]({})\n").format(spec.noun, target),
    ]
    return "\n".join(parts)


def home(
    model: Model,
    draft: Draft,
    pairs: Mapping[str, pl.DataFrame],
    histories: pl.DataFrame | None = None,
) -> str:
    """The home page body; site/index.md includes it with pymdownx.snippets."""
    page = "index.md"
    held = model.rounds.filter(pl.col("has_rows")).height
    index = page_link(page, "releases/index.md")
    rounds = Md(
        "\n**{} of {} rounds** are in the source this site was built from; "
        "[Releases]({}) lists every round and what the source has of it.\n"
    ).format(held, model.rounds.height, index)
    parts: list[str] = []
    if model.releases:
        latest = model.releases[-1]
        stats = release_stats(model.results.filter(pl.col("release") == latest))
        new = new_in(model, latest, "accelerator_id", "accelerator_label")
        link = page_link(page, model.page_of("releases", latest))
        # The story first: the newest round's first comparison and its chart, then
        # the round in numbers, then the other comparisons (issue: a reader at
        # 1440x900 or 390x844 sees a chart and its numbers without scrolling).
        numbers = [
            Md("\n### {} in numbers\n").format(latest),
            numbers_block(
                [
                    (stats["results"], "results"),
                    (stats["submitters"], "submitters"),
                    (stats["systems"], "systems"),
                    (len(new), "new accelerator types"),
                ]
            ),
            Md("New accelerators: {}.\n").format(md_join(", ", new) or "none"),
            Md("[Everything in {} →]({})\n").format(latest, link),
        ]
        parts += whats_new(
            model,
            draft,
            page,
            latest,
            "home-whats-new",
            only_new=True,
            between=numbers,
        )
    parts.append(rounds)
    parts += ["\n## Derived metrics\n", notice(page)]
    parts += [_headline(draft, page, item, pairs[item.spec.kind]) for item in HEADLINES]
    if histories is not None:
        parts.append(history_views.home_block(page, histories))
    return draft.page("partials/home.md", "\n".join(parts))


def render(model: Model) -> Rendered:
    """The home page body (``partials/home.md``)."""
    draft = Draft()
    home(model, draft, model.pairs, model.histories)
    return draft.done()


def specs(model: Model) -> list[PageSpec]:
    """The home page body: the newest round and the headline derived metrics."""
    return [PageSpec("home", render, {"model": model})]
