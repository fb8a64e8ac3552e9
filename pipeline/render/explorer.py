"""The Explorer page: every result of the rounds in the source, filtered and sorted.

Readers come to browse the canonical table the way the official results pages let
them: by round, division, category, availability, submitter, accelerator, benchmark,
scenario and power, with a text search, sorting, pages, a shareable address and a CSV
of what they filtered. The page itself is a small shell (a form and an empty table);
the rows ship as one gzip'd JSON file (``DATA_FILE``) that the page's script
(``site/assets/js/explorer.js``) fetches on demand and decompresses with the browser's
``DecompressionStream``.

Why Tabulator (``tabulator-tables`` 6.5.3, MIT): it is mature and actively kept, has
no dependencies, and brings sorting, pagination, frozen columns, programmatic filters
and a CSV download of the filtered, sorted rows (with per-column download accessors,
where the formula guard goes) built in, so the page has no hand-written table code.
Grid.js is smaller but has no column filters or downloads; DataTables needs jQuery.
Tabulator is vendored (``pipeline.render.vendor``) and loaded by the explorer script
on this page only, never from a CDN. The script itself is in ``mkdocs.yml``'s
``extra_javascript`` (small; it acts only where the container is), so generated pages
keep carrying no ``<script>`` element at all.

Upstream strings are hostile: the data file carries them as JSON text, the script
inserts them with ``textContent`` only, and result URLs pass ``safe_url`` here (an
unsafe one becomes null and its value is shown unlinked). The CSV download prefixes
formula-leading text cells exactly as ``downloads.neutralise_formula`` does: the data
file carries that rule (``FORMULA_START``, ``FORMULA_GUARD``) so the two cannot drift.
"""

from __future__ import annotations

import polars as pl

from pipeline.render.coverage import round_status
from pipeline.render.explorer_data import (
    FIRST_SCREEN_ROWS,
    data_file,
    explorer_rows,
    first_screen,
)
from pipeline.render.model import Model
from pipeline.render.spec import Draft, PageSpec, Rendered
from pipeline.render.tables import relative
from pipeline.render.vendor import TABULATOR

#: The page and its data file, under ``generated/``.
PAGE = "explorer.md"
DATA_FILE = "explorer/results.json.gz"
TITLE = "Explorer"
#: Docs-relative paths of the script (``mkdocs.yml`` extra_javascript) and the
#: library files it loads on this page.
SCRIPT = "assets/js/explorer.js"
LIBRARY = f"assets/vendor/{TABULATOR.name}/tabulator.min.js"
STYLES = (
    f"assets/vendor/{TABULATOR.name}/tabulator.min.css",
    "assets/css/explorer.css",
)
#: explorer.css (the form's layout) is linked in the page itself, so the form is
#: laid out at first paint: added by the script at start it moved the first screen
#: (Lighthouse cumulative layout shift 0.21 on a phone). The script adds the rest.


#: The filter form: data field -> label. ``power`` is derived in the browser
#: (``power_value`` present or not); ``category`` matches each of a row's
#: comma-separated categories ("datacenter,edge" is in both).
FILTERS: tuple[tuple[str, str], ...] = (
    ("release", "Round"),
    ("division", "Division"),
    ("category", "Category"),
    ("availability", "Availability"),
    ("submitter", "Submitter"),
    ("accelerator", "Accelerator"),
    ("benchmark", "Benchmark"),
    ("scenario", "Scenario"),
    ("power", "Power"),
    # Normalised by registry/descriptions.toml: a handful of values each, the
    # declared text beside them in the description columns.
    ("accelerator_memory_size", "Accelerator memory"),
    ("interconnect_family", "Interconnect"),
    ("cooling_kind", "Cooling"),
)


def _filter_controls() -> str:
    fields = "".join(
        f'<label class="ledger-explorer__field">{label}'
        f'<select name="{name}" data-filter="{name}">'
        '<option value="">all</option></select></label>'
        for name, label in FILTERS
    )
    return (
        '<form class="ledger-explorer__filters" role="search" '
        'aria-label="Filter results" autocomplete="off">'
        f"{fields}"
        '<label class="ledger-explorer__field ledger-explorer__search">Search'
        '<input type="search" name="find" placeholder="any text, e.g. MI300X"></label>'
        '<div class="ledger-explorer__actions">'
        '<button type="reset" class="md-button">Clear filters</button>'
        '<button type="button" class="md-button md-button--primary" '
        'data-action="download">Download CSV of these rows</button>'
        '<button type="button" class="md-button" data-action="grid" '
        'aria-pressed="false">Grid of one round</button>'
        '<button type="button" class="md-button" data-action="describe" '
        'aria-pressed="false">Description columns</button></div>'
        "</form>"
        # Filled by the script when a description filter is set: the rounds it
        # excludes because their source declares no such field.
        '<p class="ledger-explorer__excluded" aria-live="polite" hidden></p>'
    )


#: The reader's prices, shown by the script once the data is loaded (its accelerator
#: list comes from the data). The address keeps them as the model pages do
#: (``?price=<key>:<$ per hour>;...&kwh=<$ per kWh>``, ``prices.js``), so a link
#: shares the same assumptions on both; no price is built in.
PRICE_FORM = (
    '<form class="ledger-explorer__prices" aria-label="Your prices" '
    'autocomplete="off" hidden>'
    "<p><strong>Your prices</strong> (US$; kept in the address and remembered in "
    "this browser, as on the model pages). <code>$ per million units = price per "
    "accelerator-hour × accelerator-hours per million units</code>; "
    "<code>electricity $ per million units = price per kWh × kWh per million "
    "units</code>, MLPerf-measured power only. Derived, not an MLPerf result.</p>"
    '<label class="ledger-explorer__field">Accelerator'
    '<select data-price="accelerator"><option value="">choose one</option>'
    "</select></label>"
    '<label class="ledger-explorer__field">$ per accelerator-hour'
    '<input type="text" inputmode="decimal" data-price="hour" placeholder="$/h">'
    "</label>"
    '<label class="ledger-explorer__field">Electricity, $ per kWh'
    '<input type="text" inputmode="decimal" data-price="kwh" placeholder="$/kWh">'
    "</label>"
    '<p class="ledger-explorer__priced" role="status" aria-live="polite"></p>'
    "</form>"
)


def _series(releases: list[str]) -> str:
    """Releases as "v0.5, v1.0 and v2.1" (manifest versions, never upstream text)."""
    if len(releases) <= 1:
        return "".join(releases)
    return f"{', '.join(releases[:-1])} and {releases[-1]}"


def coverage_text(rounds: pl.DataFrame, without_power: list[str], page: str) -> str:
    """What the table holds, honestly: rounds in the source, rounds not, no power.

    How many of the known rounds it has, which are not in the source, and which
    rounds' sources carry no power measurement. ``rounds`` is
    ``coverage.round_status``; release names are manifest versions.
    """
    held = rounds.filter(pl.col("has_rows"))["release"].to_list()
    missing = rounds.filter(~pl.col("has_rows"))["release"].to_list()
    releases = relative(page, "generated/releases/index.md")
    text = (
        f"The results of the **{len(held)} of {rounds.height} rounds** in the source "
        f"this site was built from ({_series(held)})"
    )
    if missing:
        text += (
            f"; {_series(missing)} {'is' if len(missing) == 1 else 'are'} not in it "
            f"([Releases]({releases}) says what the source has of each round)"
        )
    text += "."
    if without_power:
        text += (
            f" No result of {_series(without_power)} in the source carries a power "
            "measurement, so their **Power** and **Per joule** cells say "
            "*none in* the round; elsewhere an empty cell says why (*not measured*, "
            "*latency*, *no accelerator*)."
        )
    return text


def explorer_page(
    rows: int,
    page: str = PAGE,
    *,
    rounds: pl.DataFrame | None = None,
    without_power: list[str] | None = None,
    first: str = "",
) -> str:
    """The page's Markdown: intro, filter form and the table's container.

    The form holds no upstream text (the script fills the options from the data
    file); ``first`` is the table's first page as plain HTML (``first_screen``),
    shown until the reader reaches for the table and the data loads. ``rounds``
    (``coverage.round_status``) and ``without_power`` (rounds whose rows carry no
    power value) give the coverage sentence.
    """
    base = f"generated/{page}"
    attrs = {
        "data-source": relative(base, f"generated/{DATA_FILE}"),
        "data-library": relative(base, LIBRARY),
        "data-styles": " ".join(relative(base, s) for s in STYLES),
        "data-rows": str(rows),
        "data-systems": relative(base, "generated/systems.md").removesuffix(".md")
        + ".html",
        "data-system-pages": relative(base, "generated/systems") + "/",
    }
    attributes = " ".join(f'{k}="{v}"' for k, v in attrs.items())
    downloads = relative(base, "generated/data.md")
    audit = relative(base, "generated/audit.md")
    coverage = (
        coverage_text(rounds, without_power or [], base) if rounds is not None else ""
    )
    shown = min(rows, FIRST_SCREEN_ROWS)
    status = (
        f"The first {shown:,} of {rows:,} results, newest round first. Filter, search, "
        "sort or page to load all of them."
        '<button type="button" class="ledger-explorer__load" data-action="load" '
        f"hidden>Load all {rows:,} results</button>"
        if first
        else f"Loading {rows:,} results…"
    )
    return f"""---
title: {TITLE}
hide:
  - toc
---

# {TITLE}

**{rows:,}** rows of the canonical table, as upstream published them (values link to
the upstream result folder): filter, search and sort; the address bar keeps the
view. How to read and cite them is [under the table](#reading-the-explorer).

<div id="ledger-explorer" class="ledger-explorer" {attributes}>
<link rel="stylesheet" href="{relative(base, STYLES[-1])}">
{_filter_controls()}
{PRICE_FORM}
<section class="ledger-explorer__compare" aria-live="polite" hidden></section>
<p class="ledger-explorer__status" role="status" aria-live="polite">
{status}</p>
<div class="ledger-explorer__first">
{first}</div>
<div class="ledger-explorer__table"></div>
<div class="ledger-explorer__pages"></div>
<section class="ledger-explorer__grid" hidden></section>
<noscript>The explorer needs JavaScript; every result is in the CSV and Parquet
files on the Data page.</noscript>
</div>

## Reading the Explorer {{#reading-the-explorer}}

{coverage}

The address bar keeps the view, so a link to it shows the same rows.
**Download CSV** saves the rows that pass the filters, in the order shown, across all
pages. The complete table is also on the [Data]({downloads}) page. **Result ID** is
MLCommons' official ID of a result where its round publishes one (empty cells say
which rounds publish none): it is what a citation names, while the result key is
this site's identifier. The CSV's `citation` column and a comparison's **How to
cite** row give the line to cite a result by (round, division, category, ID,
publication date, source), following MLCommons' messaging guidelines.
**Accuracy (as published)** is the accuracy of the result's accuracy run as
upstream wrote it (the summary's Accuracy field, or the raw tree's `accuracy.txt`),
beside the result: in the open division, where a submitter may change the model,
accuracy is what differs. A result whose round's source, as this site read it, has
none says *not in the source this site read*.

Press **compare**, the first button of a row, on two rows (in any rounds) to see them
side by side, with the ratio when they can be compared and why not when they cannot,
and what the site's pair rules say of the pair. Two results of different accelerator
counts are compared per accelerator first, then in total, both labelled ("Per
accelerator: B is 1.12× A · Total (8 vs 72 accelerators): B is 10.09× A"); at one
count the ratio is the total. Either ratio is derived, not an MLPerf result. The
address bar keeps the pair, so the link shares it. **Grid of one round** shows the
round chosen in the Round filter the official way: one row per system, a column
per benchmark × scenario. **Per joule** is work per energy where power was measured.
**Accelerator-hours per million units** is derived, not an MLPerf result:
10<sup>6</sup> / (3600 × the per-accelerator throughput), in the result's own unit
(tokens, samples, queries); times a price per accelerator-hour it is the price of a
million units. A latency result, a CPU-only or mixed system has none (the cell's
title says why); the CSV adds joules and kWh per unit (measured power only) and each
LLM result's latency limits. **Your prices** (once the table is loaded): a price per
accelerator-hour for an accelerator fills **$ per million units** for its results,
and an electricity price per kWh fills **Electricity $ per million units** for the
results whose power MLPerf measured (*not measured* elsewhere: a declared design
power is never used). Both are derived, not MLPerf results, and stay out of the CSV,
whose columns do not depend on what you entered: it holds the accelerator-hours and
kWh to multiply. A link to the page keeps the prices, in the same form as the
model pages use.
**Description columns** shows what each system's submitter declared (accelerator
memory, interconnect, host memory, cooling, framework, operating system); a system's
name links to its description across rounds on the
[Systems]({relative(base, "generated/systems.md")}) page. The description is the
submitter's declaration, not a measurement. Interconnect, cooling and accelerator
memory are shown twice: normalised (a family such as *NVLink 5* or *PCIe 5.0*, a kind
such as *air* or *liquid*, memory in GB as sold, so 16 GiB is 16 GB), which the
filters use, and as declared. The normalisation is reviewed data with evidence
(`registry/descriptions.toml`); a declared spelling it does not cover is kept, shown
as *not in the vocabulary*, and listed on the [Audit]({audit}) page. A round whose
source, as this site read it, declares no such field says *not in the source this
site read* in those cells, and a filter on the field says which rounds it leaves out.
"""


def explorer_files(
    results: pl.DataFrame, systems: pl.DataFrame | None = None
) -> tuple[str, bytes]:
    """The page's Markdown and its data file (``DATA_FILE``), nothing written."""
    rows = explorer_rows(results, systems)
    data = data_file(rows)
    present = results.lazy().select("release").unique().collect()["release"]
    with_power = (
        results.lazy()
        .filter(pl.col("power_value").is_not_null())
        .select("release")
        .unique()
        .collect()["release"]
        .to_list()
        if "power_value" in results.columns
        else []
    )
    rounds = round_status(present)
    without_power = [
        r
        for r in rounds.filter(pl.col("has_rows"))["release"].to_list()
        if r not in with_power
    ]
    text = explorer_page(
        results.height,
        rounds=rounds,
        without_power=without_power,
        first=first_screen(rows),
    )
    return text, data


def render(results: pl.DataFrame, systems: pl.DataFrame | None) -> Rendered:
    """The Explorer and its data file.

    Reads the canonical table as the downloads hold it (nulls stay null, not the
    pages' placeholder name), so its CSV matches the Data page's.
    """
    text, data = explorer_files(results, systems)
    draft = Draft()
    # The data file first, then the page: the order the files were always written.
    draft.file(DATA_FILE, data)
    draft.file(PAGE, text)
    return draft.done()


def specs(model: Model) -> list[PageSpec]:
    """The Explorer (one line in ``pages.PAGE_MODULES``)."""
    inputs = {"results": model.data.results, "systems": model.data.systems}
    return [PageSpec("explorer", render, inputs)]
