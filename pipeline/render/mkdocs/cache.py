"""MkDocs hooks: reuse the HTML of pages whose inputs did not change since last time.

A correction or a new round changes the Markdown of about one page in ten, yet MkDocs
converts every page's Markdown and renders every page's template (Material's nav is
most of that). This hook keeps, per page, two results of the last good build, each
under a key that names everything it was computed from:

``content``
    Markdown -> HTML (the content, its table of contents, title and anchors). Key: the
    page's final Markdown (after ``hooks.py``), its fragments, front matter, path
    and the build's salt. Links are not in the key: on reuse each of the page's
    relative links is resolved again against this build's files, exactly as MkDocs
    does, and a link that resolves differently (or not at all) renders the page
    afresh, so a broken link still fails the build.
``html``
    The finished page (and Material's search entries for it). Key: the content
    key, the table of contents, title, meta, URLs, neighbours, and the navigation
    *as this page shows it*: Material's
    ``navigation.prune`` renders a closed section as one link to its first page, so
    a section that grows (a new accelerator) leaves the nav of pages outside it, and
    their bytes, unchanged.

The salt is the MkDocs configuration file, the site URL, the theme overrides, every
module of this package (the hooks and their patches) and the versions of MkDocs,
Material, Markdown, its extensions and Jinja: a change to any of them renders every
page afresh. Pages that include snippets
(``--8<--``) are always rendered (the included file is not in the key).

Entries are written only after a build that logged no warning (a failed build never
seeds the cache) and the cache keeps what the last build used, nothing older.
``MLPERF_LEDGER_PAGE_CACHE`` names the folder (``pipeline.publish`` sets it under
``build/cache``); without it the hook does nothing, so a plain ``mkdocs build`` is a
plain build. ``MLPERF_LEDGER_PAGE_CACHE_VERIFY=1`` renders every page anyway and logs a
warning (which fails a strict build) for each page whose cached result differs:
the tests run a build that way.

Loaded by MkDocs from its file path (``hooks:``), listed after ``hooks.py``, so it
sees each page's Markdown after that hook and its output after it; like that hook it
imports nothing from the pipeline but ``patches.py``, which makes (in ``on_config``)
the patches of MkDocs' link resolution, page conversion and file writes and of
Material's search index that this hook's reuse needs.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
from importlib import metadata
from pathlib import Path
from typing import Any

import jinja2
from mkdocs.structure.nav import Link, Section
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc

from pipeline.render.mkdocs import patches

log = logging.getLogger("mkdocs.hooks.mlperf_ledger_cache")
CACHE_ENV = "MLPERF_LEDGER_PAGE_CACHE"
#: Folder of the compiled templates (Jinja's bytecode cache), in the machine cache.
TEMPLATE_CACHE_ENV = "MLPERF_LEDGER_TEMPLATE_CACHE"
VERIFY_ENV = "MLPERF_LEDGER_PAGE_CACHE_VERIFY"
#: The template a page whose finished HTML is reused renders (empty, ``on_env``).
REUSED_TEMPLATE = "ledger-reused.html"
#: What the last build reused, in the cache folder (``out_site__published`` shows it).
REPORT = "report.json"
#: Distributions whose code shapes the HTML.
PACKAGES = ("mkdocs", "mkdocs-material", "markdown", "pymdown-extensions", "jinja2")
#: Front-matter keys Material's nav shows for a page other than the current one.
NAV_META = ("icon", "subtitle", "status")
HERE = Path(__file__).parent


class _Build:
    """What one MkDocs build (one process) reads and writes."""

    def __init__(self, folder: Path, verify: bool, salt: str) -> None:
        self.folder, self.verify, self.salt = folder, verify, salt
        self.nav: Any = None
        self.files: Any = None
        self.config: Any = None
        self.pending: dict[Path, bytes] = {}
        #: Entries kept as hard links of files this build wrote (gzip, HTML).
        self.linked: dict[Path, Path] = {}
        #: A page's output file -> its HTML entry and, when reused, the entry's
        #: bytes (None: rendered afresh). See ``_write_page``.
        self.html_of: dict[str, tuple[Path, bytes | None]] = {}
        self.used: set[Path] = set()
        self.warnings = 0
        self.reused = {"content": 0, "html": 0}


class _Counter(logging.Handler):
    def __init__(self, build: _Build) -> None:
        super().__init__(logging.WARNING)
        self.build = build

    def emit(self, record: logging.LogRecord) -> None:
        self.build.warnings += 1


_build: _Build | None = None


def _recording_path_to_url(self: Any, url: str) -> str:
    """MkDocs' link resolution, recorded per page (what a reused page replays)."""
    resolved = patches.original("resolve_link")(self, url)
    links = getattr(self.file.page, "ledger_links", None)
    if _build is not None and links is not None:
        links.append([url, resolved])
    return resolved


def _cached_index_entries(self: Any, page: Any) -> None:
    """Material's search entries of a page, reused when its finished HTML is.

    They are a function of what the HTML key holds (content, toc, title, meta, URL).
    """
    key = getattr(page, "ledger_html_key", None)
    if _build is None or key is None:
        return patches.original("add_search_entry")(self, page)
    path = _path("search", key, ".json")
    cached = _read(path)
    if cached is not None and not _build.verify:
        self.entries.extend(json.loads(cached))
        return None
    start = len(self.entries)
    patches.original("add_search_entry")(self, page)
    fresh = json.dumps(self.entries[start:]).encode()  # key order is output
    if cached is None:
        _store(path, fresh)
    elif cached != fresh:
        _mismatch(page, "search entries")
    return None


def _render_unless_reused(self: Any, config: Any, files: Any) -> None:
    """MkDocs' Markdown conversion, skipped for a page whose conversion is reused.

    MkDocs sets up a Markdown instance with every extension for each page, even for
    the empty source a reused page hands it (~0.4 ms a page, 745 pages of a
    correction); ``on_page_content`` puts the cached conversion in its place.
    """
    if _build is None or _build.verify or getattr(self, "ledger_content", None) is None:
        return patches.original("render_page")(self, config, files)
    self.content = ""
    self.toc = get_toc([])
    self._title_from_render = None
    self.present_anchor_ids = set()
    self.links_to_anchors = {}
    return None


def _write_page(content: bytes, output_path: str) -> None:
    """MkDocs' write of a file; a page's cached HTML is hard-linked, not rewritten.

    A link to the cache entry of the same bytes costs no new inode: creating ~800
    files is most of the cost of writing a site, more so on ext4 soon after a
    build's worth of files was deleted (the allocator skips recently freed inodes).
    Freshly rendered pages are written as MkDocs does and become the cache entry
    themselves (linked after a clean build, ``on_post_build``). Cache entries and
    published files are never written in place, so the link is safe.
    """
    entry = _build.html_of.pop(output_path, None) if _build is not None else None
    if entry is None:
        return patches.original("write_file")(content, output_path)
    assert _build is not None
    path, cached = entry
    if cached == content:
        try:
            Path(output_path).parent.mkdir(parents=True, exist_ok=True)
            os.link(path, output_path)
            return None
        except OSError:
            pass
    patches.original("write_file")(content, output_path)
    if cached is None and _build.pending.get(path) == content:
        del _build.pending[path]
        _build.linked[path] = Path(output_path)
    return None


def _digest(*parts: object) -> str:
    return hashlib.sha256(
        json.dumps(parts, sort_keys=True, default=str).encode()
    ).hexdigest()


def _salt(config: Any) -> str:
    """Everything outside the pages that shapes every page's HTML."""
    custom = getattr(config["theme"], "custom_dir", None)
    overrides = Path(custom) if custom else None
    files = sorted(p for p in overrides.rglob("*") if p.is_file()) if overrides else []
    return _digest(
        _file_digest(Path(config.config_file_path)),
        config.get("site_url"),
        [(p.relative_to(overrides).as_posix(), _file_digest(p)) for p in files],
        [(path.name, _file_digest(path)) for path in sorted(HERE.glob("*.py"))],
        [(name, metadata.version(name)) for name in PACKAGES],
    )


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _path(kind: str, key: str, suffix: str) -> Path:
    assert _build is not None
    return _build.folder / kind / key[:2] / f"{key}{suffix}"


def _read(path: Path) -> bytes | None:
    assert _build is not None
    _build.used.add(path)
    try:
        return path.read_bytes()
    except OSError:
        return None


def _store(path: Path, data: bytes) -> None:
    assert _build is not None
    _build.used.add(path)
    _build.pending[path] = data


def on_config(config: Any) -> Any:
    """Start a build: where the cache is, and count warnings (none: entries kept).

    Puts this hook's patches in place (``patches.install``, which checks the
    versions first); without a cache folder they do what MkDocs does.
    """
    global _build
    patches.install(
        resolve_link=_recording_path_to_url,
        add_search_entry=_cached_index_entries,
        render_page=_render_unless_reused,
        write_file=_write_page,
    )
    folder = os.environ.get(CACHE_ENV)
    if not folder:
        _build = None
        return config
    _build = _Build(Path(folder), os.environ.get(VERIFY_ENV) == "1", _salt(config))
    logging.getLogger("mkdocs").addHandler(_Counter(_build))
    return config


def on_nav(nav: Any, config: Any, files: Any) -> Any:
    """Keep what replaying links and keying pages by their nav need."""
    if _build is not None:
        _build.nav, _build.files, _build.config = nav, files, config
    return nav


def _content_key(markdown: str, page: Any) -> str | None:
    if "--8<--" in markdown:
        return None
    assert _build is not None
    return _digest(
        _build.salt,
        page.file.src_uri,
        page.file.url,
        markdown,
        getattr(page, "ledger_fragments", {}),
        page.meta,
    )


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """A page converted before with these inputs skips Markdown (an empty source)."""
    if _build is None:
        return markdown
    page.ledger_content_key = key = _content_key(markdown, page)
    page.ledger_links = []
    if key is None:
        return markdown
    raw = _read(_path("content", key, ".json"))
    entry = json.loads(raw) if raw else None
    if entry is None or not _links_hold(page, entry):
        return markdown
    page.ledger_links = []  # this render's own, in verify mode
    page.ledger_content = entry
    if _build.verify:
        return markdown
    _build.reused["content"] += 1
    return ""


def _links_hold(page: Any, entry: dict) -> bool:
    """Each relative link resolves in this build as it did when the entry was made.

    Sets the page's links to other pages' anchors, as MkDocs' own pass would.
    """
    assert _build is not None
    resolver = patches.link_resolver(page.file, _build.files, _build.config)
    resolve = patches.original("resolve_link")
    for url, resolved in entry["links"]:
        if resolve(resolver, url) != resolved:
            return False
    page.ledger_links_to_anchors = resolver.links_to_anchors
    return True


def _entry(page: Any, content: str) -> dict:
    return {
        "content": content,
        "toc": _toc_tokens(page.toc),
        "title": page._title_from_render,
        "anchors": sorted(page.present_anchor_ids or ()),
        "links": page.ledger_links,
        "fragments": getattr(page, "ledger_fragments", {}),
    }


def _toc_tokens(toc: Any) -> list[dict]:
    return [
        {
            "level": item.level,
            "id": item.id,
            "name": item.title,
            "children": _toc_tokens(item.children),
        }
        for item in toc
    ]


def on_page_content(html: str, page: Any, **_: Any) -> str:
    """Restore a reused conversion, or keep this one for the next build."""
    if _build is None or page.ledger_content_key is None:
        return html
    entry = getattr(page, "ledger_content", None)
    if entry is not None and _build.verify:
        fresh = _entry(page, html)
        if fresh != entry:
            _mismatch(page, "content")
        return html
    if entry is None:
        _store(
            _path("content", page.ledger_content_key, ".json"),
            json.dumps(_entry(page, html), sort_keys=True).encode(),
        )
        return html
    page.toc = get_toc(entry["toc"])
    page._title_from_render = entry["title"]
    page.present_anchor_ids = set(entry["anchors"])
    page.links_to_anchors = page.ledger_links_to_anchors
    page.ledger_fragments = entry["fragments"]
    return entry["content"]


def _mismatch(page: Any, kind: str) -> None:
    log.warning("page cache: %s of %s differs from its cached %s",
                kind, page.file.src_uri, kind)  # fmt: skip


def _nav_view(item: Any, page: Any) -> Any:
    """What Material's nav renders of ``item`` on ``page`` (``navigation.prune``)."""
    if isinstance(item, Section):
        if not item.active:
            first = item
            while first.children and getattr(first.children[0], "children", None):
                first = first.children[0]
            lead = first.children[0] if first.children else None
            url = getattr(lead, "url", None)
            return ["closed", item.title, url, bool(item.children)]
        index = next((c for c in item.children if getattr(c, "is_index", False)), None)
        return [
            "open",
            item.title,
            _page_view(index, page) if index else None,
            len(item.children),
            [_nav_view(c, page) for c in item.children if c is not index],
        ]
    if isinstance(item, Link):
        return ["link", item.title, item.url]
    return _page_view(item, page)


def _page_view(item: Any, page: Any) -> list:
    meta = item.meta or {}
    return [
        "page",
        item.title,
        item.url,
        item is page,
        [meta.get(key) for key in NAV_META],
    ]


def _html_key(page: Any) -> str | None:
    """The finished page's key; ``page.active`` must be set (as while it renders)."""
    assert _build is not None
    if page.ledger_content_key is None:
        return None
    return _digest(
        _build.salt,
        page.ledger_content_key,
        _toc_tokens(page.toc),
        page.title,
        page.meta,
        page.url,
        page.canonical_url,
        page.is_homepage,
        page.edit_url,
        [
            (other.url, other.title) if other else None
            for other in (page.previous_page, page.next_page)
        ],
        [_nav_view(item, page) for item in _build.nav.items],
    )


def on_env(env: Any, config: Any, files: Any) -> Any:
    """Pages whose finished HTML is cached render an empty template instead.

    The template is the hook's own (no theme needs to ship it). Compiled templates
    come from ``MLPERF_LEDGER_TEMPLATE_CACHE`` when it is set.
    """
    bytecode = os.environ.get(TEMPLATE_CACHE_ENV)
    if bytecode:
        # Material's ~40 templates compile in ~0.3 s, every build; Jinja's own
        # cache keeps their bytecode, checked against each template's source and
        # written atomically, so every build folder of the machine can share it.
        Path(bytecode).mkdir(parents=True, exist_ok=True)
        env.bytecode_cache = jinja2.FileSystemBytecodeCache(bytecode)
    if _build is None:
        return env
    env.loader = jinja2.ChoiceLoader(
        [jinja2.DictLoader({REUSED_TEMPLATE: ""}), env.loader]
    )
    for file in files.documentation_pages():
        page = file.page
        if not isinstance(page, Page) or not hasattr(page, "ledger_content_key"):
            continue
        page.active = True
        try:
            page.ledger_html_key = key = _html_key(page)
        finally:
            page.active = False
        if key is None:
            continue
        cached = _read(_path("html", key, ".html"))
        if cached is None:
            continue
        page.ledger_html = cached.decode("utf-8")
        page.ledger_html_bytes = cached
        if not _build.verify:
            _build.reused["html"] += 1
            page.meta["template"] = REUSED_TEMPLATE
            # The fragments are inside the cached HTML already.
            page.ledger_fragments = {}
    return env


def on_post_page(output: str, page: Any, **_: Any) -> str:
    """The cached HTML of a reused page; keep a freshly rendered one."""
    if _build is None or getattr(page, "ledger_html_key", None) is None:
        return output
    cached = getattr(page, "ledger_html", None)
    path = _path("html", page.ledger_html_key, ".html")
    if cached is not None and not _build.verify:
        _build.html_of[page.file.abs_dest_path] = (path, page.ledger_html_bytes)
        return cached
    if cached is not None and cached != output:
        _mismatch(page, "html")
    if cached is None:
        fresh = output.encode("utf-8")
        _store(path, fresh)
        _build.html_of[page.file.abs_dest_path] = (path, None)
    return output


def write_gzip(data: bytes, target: Path) -> None:
    """Write ``gzip`` of ``data`` (level 6, mtime 0) to ``target``.

    Bytes gzipped by the last good build are hard-linked from the cache (its
    entries are replaced by rename, never rewritten in place), a new file else.
    """
    if _build is None:
        target.write_bytes(gzip.compress(data, compresslevel=6, mtime=0))
        return
    path = _path("gzip", hashlib.sha256(data).hexdigest(), ".gz")
    _build.used.add(path)
    if not _build.verify:
        try:
            os.link(path, target)
            return
        except OSError:
            pass
    packed = gzip.compress(data, compresslevel=6, mtime=0)
    cached = _read(path)
    target.write_bytes(packed)
    if cached is None:
        # Kept by linking the file just written (``on_post_build``), not a copy.
        _build.linked[path] = target
    elif cached != packed:
        log.warning("page cache: gzip of %s differs from its cached copy", target.name)


def on_post_build(config: Any, **_: Any) -> None:
    """Keep this build's entries if it logged no warning; drop what it did not use."""
    if _build is None:
        return
    (_build.folder / REPORT).unlink(missing_ok=True)
    if _build.warnings:
        log.info("page cache: not updated (the build logged warnings)")
        return
    _build.folder.mkdir(parents=True, exist_ok=True)
    for folder in {path.parent for path in (*_build.pending, *_build.linked)}:
        folder.mkdir(parents=True, exist_ok=True)
    for path, data in _build.pending.items():
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_bytes(data)
        temporary.replace(path)
    for path, written in _build.linked.items():
        temporary = path.with_name(path.name + ".tmp")
        temporary.unlink(missing_ok=True)
        try:
            os.link(written, temporary)
        except OSError:  # another file system: a copy
            temporary.write_bytes(written.read_bytes())
        temporary.replace(path)
    for kind in ("content", "html", "search", "gzip"):
        for path in (_build.folder / kind).glob("*/*"):
            if path not in _build.used:
                path.unlink(missing_ok=True)
    report = {
        "pages": len(_build.files.documentation_pages()),
        "reused": _build.reused["html"],
        "conversions_reused": _build.reused["content"],
    }
    (_build.folder / REPORT).write_text(json.dumps(report) + "\n", encoding="utf-8")
    log.info(
        "page cache: %d of %d pages reused, %d more reused their Markdown conversion",
        report["reused"],
        report["pages"],
        report["conversions_reused"] - report["reused"],
    )
