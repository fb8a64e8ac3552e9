"""The site's Atom feed (``generated/feed.xml``): new rounds, upstream corrections.

A reader who follows the ledger wants to hear of two events: MLCommons published a
round, or changed one after publishing it. Each is one entry, dated from the data,
never from the clock, so identical inputs give identical bytes: a round by its
publication date (``releases.toml``) or, when later, the date of the upstream commit
it was read at; a correction by the time the pipeline first stored the new snapshot
(``seen_at``, also on the Changes page). Ids are ``urn:uuid`` names derived from the
round and the snapshots' sha256, so they survive a move of the site (RFC 4287 4.2.6).

Escaping: element text and attribute values are XML-escaped
(``xml.sax.saxutils``) after characters XML 1.0 cannot carry become U+FFFD; entry
content is HTML (``type="html"``) built through the ``safe`` layer first (``Md``
templates: upstream strings escaped, upstream links through ``safe.link_md``).
Links are absolute under the site's URL when it has one; without one they are
relative to the feed, as RFC 4287 allows.

Every page's head names the feed (``<link rel="alternate" type=
"application/atom+xml">``, ``site/overrides/main.html``). Material's JavaScript
fetches ``sitemap.xml`` next to every ``link[rel=alternate]`` it finds (its
language switch reads alternates from there), so ``generated/sitemap.xml`` is
written too: an empty sitemap, naming no page, without which every page load would
request a missing file. The site's own sitemap stays ``sitemap.xml`` at the root.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from dataclasses import dataclass
from xml.sax.saxutils import escape as xml_escape
from xml.sax.saxutils import quoteattr

import polars as pl

from pipeline import settings
from pipeline.manifest import release_for
from pipeline.render import claim_notes, safe
from pipeline.render.change_notes import PAGE as CHANGES_PAGE
from pipeline.render.change_notes import anchor as changes_anchor
from pipeline.render.model import Model
from pipeline.render.safe import Md, md_join
from pipeline.render.spec import GENERATED, Draft, PageSpec, Rendered

#: The feed's path under the generated folder (linked from every page's head by
#: ``site/overrides/main.html``).
FEED = "feed.xml"
#: Next to the feed for Material's sake (see the module docstring).
SITEMAP_STUB = "sitemap.xml"
SITEMAP_STUB_TEXT = (
    '<?xml version="1.0" encoding="utf-8"?>\n'
    "<!-- Empty on purpose (pipeline/render/feed.py); the site's sitemap is the "
    "root's. -->\n"
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>\n'
)
TITLE = "mlperf-ledger: new MLPerf Inference rounds and upstream corrections"
#: Changes listed in a correction's entry; the Changes page has all of them.
LISTED_CHANGES = 10
#: Stands for "no date" so a feed with no entry still has a valid ``updated``.
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
#: Characters XML 1.0 cannot hold, even escaped (controls, lone surrogates, U+FFFE/F).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
#: Names the entry ids are derived from (uuid5), fixed once: changing it renames
#: every entry for every reader.
_ID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "urn:mlperf-ledger:feed")


@dataclass(frozen=True)
class Entry:
    """One feed entry; ``summary_html`` is HTML whose upstream text is escaped."""

    key: str
    title: str
    updated: dt.datetime
    link: str
    summary_html: Md
    published: dt.datetime | None = None
    related: str | None = None


def _text(value: str) -> str:
    """``value`` as XML element text."""
    return xml_escape(_NOT_XML.sub("\ufffd", value))


def _attr(value: str) -> str:
    """``value`` as a quoted XML attribute value."""
    return quoteattr(_NOT_XML.sub("\ufffd", value))


def _entry_id(key: str) -> str:
    return f"urn:uuid:{uuid.uuid5(_ID_NAMESPACE, key)}"


def _instant(value: object) -> dt.datetime | None:
    """A date or ISO timestamp as an aware UTC datetime to the second, else None.

    Dates are midnight UTC; timestamps without a zone are taken as UTC (the
    pipeline writes UTC).
    """
    if isinstance(value, dt.datetime):
        moment = value
    elif isinstance(value, dt.date):
        moment = dt.datetime.combine(value, dt.time())
    elif isinstance(value, str) and value:
        try:
            moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC).replace(microsecond=0)


def _stamp(moment: dt.datetime) -> str:
    """RFC 3339 in UTC (``2025-09-09T00:00:00Z``)."""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _count(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless one ("1 result", "2 results")."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _page(rel: str) -> Md:
    """A generated page's link relative to the feed (both under ``generated/``)."""
    return safe.path(rel.removesuffix(".md") + ".html")


def round_entries(model: Model) -> list[Entry]:
    """One entry per round with results: when it was published, what it holds."""
    published = {
        r: d for r, d in model.rounds.select("release", "published_date").iter_rows()
    }
    provenance = (
        {row["release"]: row for row in model.data.rounds.iter_rows(named=True)}
        if model.data.rounds is not None
        else {}
    )
    counts = {
        row["release"]: row
        for row in model.results.group_by("release")
        .agg(
            results=pl.len(),
            submitters=pl.col("submitter").n_unique(),
            benchmarks=pl.col("benchmark").n_unique(),
        )
        .iter_rows(named=True)
    }
    entries = []
    for release in model.releases:
        first = _instant(published.get(release))
        facts = provenance.get(release) or {}
        committed = _instant(facts.get("commit_date"))
        dates = [d for d in (first, committed) if d is not None]
        if not dates:
            continue  # nothing in the data dates it; the clock must not
        n = counts[release]
        approximate = release_for(release).date_approximate
        on = Md(" on {} (approximate)") if approximate else Md(" on {}")
        when = on.format(first.date().isoformat()) if first else ""
        upstream = ""
        if facts.get("repository"):
            tree = "/tree/" + facts["commit"] if facts.get("commit") else ""
            url = f"https://github.com/{facts['repository']}{tree}"
            if safe.accepts(url):
                upstream = Md(" · {}").format(safe.link_md(facts["repository"], url))
        page = _page(model.page_of("releases", release))
        entries.append(
            Entry(
                key=f"round:{release}",
                title=f"MLPerf Inference {release} published",
                updated=max(dates),
                # Atom's published is an instant: an approximate day is not one, so
                # it is left out and the summary says "(approximate)".
                published=None if approximate else first,
                link=page,
                summary_html=Md(
                    "<p>MLCommons published MLPerf Inference {name}{when}: {results} "
                    "from {submitters} in {benchmarks}.</p>"
                    '<p><a href="{page}">The {name} page</a>{upstream}</p>{claims}'
                ).format(
                    name=release,
                    when=when,
                    results=_count(n["results"], "result"),
                    submitters=_count(n["submitters"], "submitter"),
                    benchmarks=_count(n["benchmarks"], "benchmark"),
                    page=page,
                    upstream=upstream,
                    claims=claim_notes.feed_claims(model.verdicts, release),
                ),
            )
        )
    return entries


def _change_line(row: dict) -> Md:
    key = row["result_key"]
    if row["change"] != "changed":
        return Md("<li>{}: {}</li>").format(key, row["change"])
    return Md("<li>{}: {} “{}” → “{}”</li>").format(
        key, row["field"], row["old_value"], row["new_value"]
    )


def correction_entries(model: Model) -> list[Entry]:
    """One entry per corrected snapshot of a round: what changed, field by field."""
    corrections = model.data.corrections
    if corrections is None or corrections.is_empty():
        return []
    entries = []
    groups = corrections.sort("result_key", "field", nulls_last=True).group_by(
        "release", "old_sha256", "new_sha256", maintain_order=True
    )
    for (release, old, new), rows in sorted(groups, key=lambda g: g[0]):
        seen = _instant(rows["seen_at"].drop_nulls().min())
        if seen is None:
            continue
        changed = rows.filter(pl.col("change") == "changed")
        added = rows.filter(pl.col("change") == "added").height
        removed = rows.filter(pl.col("change") == "removed").height
        results = changed["result_key"].n_unique()
        changes = safe.path(f"{_page(CHANGES_PAGE)}#{changes_anchor(release)}")
        page = (
            _page(model.page_of("releases", release))
            if release in model.slugs.get("releases", {})
            else None
        )
        listed = md_join(
            "",
            (
                _change_line(row)
                for row in rows.head(LISTED_CHANGES).iter_rows(named=True)
            ),
        )
        more = rows.height - min(rows.height, LISTED_CHANGES)
        release_link = (
            Md(' · <a href="{}">The {} page</a>').format(page, release) if page else ""
        )
        what = ", ".join(
            part
            for n, part in (
                (results, f"{_count(results, 'result')} changed"),
                (added, f"{added:,} added"),
                (removed, f"{removed:,} removed"),
            )
            if n
        )
        entries.append(
            Entry(
                key=f"correction:{release}:{old}:{new}",
                title=f"MLPerf Inference {release} corrected upstream: {what}",
                updated=seen,
                link=changes,
                related=page,
                summary_html=Md(
                    "<p>MLCommons changed the published {name} results: {results} "
                    "changed in {fields}, {added:,} added, {removed:,} removed "
                    "(snapshot <code>{old}</code> → <code>{new}</code>).</p>"
                    "<ul>{listed}</ul>{more}"
                    '<p><a href="{changes}">Every change on the Changes page</a>'
                    "{release_link}</p>"
                ).format(
                    name=release,
                    results=_count(results, "result"),
                    fields=_count(changed.height, "field change"),
                    added=added,
                    removed=removed,
                    old=old[:12],
                    new=new[:12],
                    listed=listed,
                    more=Md("<p>… and {} more.</p>").format(more) if more else "",
                    changes=changes,
                    release_link=release_link,
                ),
            )
        )
    return entries


def render_feed(entries: list[Entry], site_url: str = "") -> str:
    """The Atom document of ``entries``, newest first.

    ``site_url`` (the site's root, ending in "/") makes every link absolute; the
    entries' links are relative to the feed in ``generated/``.
    """
    base = f"{site_url.rstrip('/')}/{GENERATED}/" if site_url else ""

    def href(rel: str) -> str:
        return _attr(base + str(rel))  # str: base + Md would escape the base

    ordered = sorted(entries, key=lambda e: (e.updated, e.key), reverse=True)
    updated = max((e.updated for e in ordered), default=EPOCH)
    home = site_url or "../index.html"
    # With a site URL, xml:base names the folder every link is under (readers that
    # show an entry's HTML out of the feed resolve its links against it); without
    # one (a local build), the feed says so: its links are relative to its address.
    root = (
        f'<feed xmlns="http://www.w3.org/2005/Atom" xml:base={_attr(base)}>'
        if base
        else '<feed xmlns="http://www.w3.org/2005/Atom">\n'
        "  <!-- Built without a site URL (MLPERF_LEDGER_SITE_URL): every link is "
        "relative to this feed's own address. -->"
    )
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        root,
        f"  <id>{_entry_id('feed')}</id>",
        f"  <title>{_text(TITLE)}</title>",
        "  <subtitle>Each round of MLPerf Inference results MLCommons publishes, and "
        "each correction it makes to one afterwards, as mlperf-ledger reads them."
        "</subtitle>",
        f"  <updated>{_stamp(updated)}</updated>",
        "  <author><name>mlperf-ledger</name></author>",
        "  <generator>mlperf-ledger</generator>",
        f'  <link rel="self" type="application/atom+xml" href={href(FEED)}/>',
        f'  <link rel="alternate" type="text/html" href={_attr(home)}/>',
    ]
    for entry in ordered:
        # Plain text from here on: XML-escaped as a whole below (re.sub on Md would
        # escape the absolute URLs again as if they were upstream text).
        summary = str(entry.summary_html)
        if base:
            # The summary's own links are feed-relative too: make them absolute.
            summary = re.sub(
                r'href="(?!https?:)([^"]*)"', lambda m: f'href="{base}{m[1]}"', summary
            )
        lines += [
            "  <entry>",
            f"    <id>{_entry_id(entry.key)}</id>",
            f"    <title>{_text(entry.title)}</title>",
            f"    <updated>{_stamp(entry.updated)}</updated>",
        ]
        if entry.published is not None:
            lines.append(f"    <published>{_stamp(entry.published)}</published>")
        lines.append(
            f'    <link rel="alternate" type="text/html" href={href(entry.link)}/>'
        )
        if entry.related:
            lines.append(
                f'    <link rel="related" type="text/html" href={href(entry.related)}/>'
            )
        lines += [
            f'    <content type="html">{_text(summary)}</content>',
            "  </entry>",
        ]
    lines.append("</feed>")
    return "\n".join(lines) + "\n"


def render(model: Model, site_url: str) -> Rendered:
    """``generated/feed.xml`` from the rounds and corrections the site shows."""
    entries = round_entries(model) + correction_entries(model)
    draft = Draft()
    draft.page(FEED, render_feed(entries, site_url))
    draft.page(SITEMAP_STUB, SITEMAP_STUB_TEXT)
    return draft.done()


def specs(model: Model) -> list[PageSpec]:
    """The feed: it reads the whole model (rounds, results, corrections, verdicts)."""
    return [PageSpec("feed", render, {"model": model, "site_url": settings.site_url()})]
