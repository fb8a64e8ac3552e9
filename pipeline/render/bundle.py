"""The Vega, Vega-Lite and vega-embed JavaScript the site serves itself.

``vl_convert.javascript_bundle()`` bundles the exact library versions vl-convert ships
(Vega 6, Vega-Lite 6, vega-embed 7: what Altair 6 specs need) into one script whose
default snippet sets ``window.vegaEmbed``, ``window.vega`` and ``window.vegaLite``. No
CDN is involved, at build time or in the reader's browser.

The bundle declares top-level ``const``s; in a classic script those would share the
global scope with every other script on the page, so we wrap it in a function scope.

Bundling takes seconds and its output only depends on vl-convert's version and our
wrapper, so the result is cached in the machine cache (``settings.cache_dir()``) in a
file named by that key (``bundle_key``) and copied from there; only a new vl-convert
(or a new wrapper) bundles again. Pages load it only where they have a chart
(``charts.js``). Static SVG renderings (``cached_svg``) are cached the same way, by
the hash of their spec and the versions.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.metadata
import json
from functools import cache
from pathlib import Path

import vl_convert

from pipeline.blobs import write_whole

BUNDLE_NAME = "vega-bundle.js"
#: How the bundle is wrapped; part of the cache key.
WRAPPER = "(() => {{\n{body}\n}})();\n"


@cache
def _versions() -> dict[str, str]:
    return {
        "vl-convert-python": importlib.metadata.version("vl-convert-python"),
        "vega": vl_convert.get_vega_version(),
        "vega-lite": vl_convert.get_vegalite_versions()[-1],
        "vega-embed": vl_convert.get_vega_embed_version(),
    }


def bundle_key() -> str:
    """The cache key: sha256 over vl-convert's and the libraries' versions, wrapper."""
    inputs = json.dumps({"versions": _versions(), "wrapper": WRAPPER}, sort_keys=True)
    return hashlib.sha256(inputs.encode()).hexdigest()


def bundle_header() -> str:
    """First line of the bundle: versions and cache key; an equal line skips a copy."""
    v = _versions()
    return (
        f"/* vega {v['vega']}, vega-lite {v['vega-lite']}, "
        f"vega-embed {v['vega-embed']}; bundled by vl-convert-python "
        f"{v['vl-convert-python']} for mlperf-ledger; key {bundle_key()[:16]} */\n"
    )


def cached_svg(spec: dict, cache_dir: Path | None) -> str:
    """``vl_convert.vegalite_to_svg(spec)``, from the cache when rendered before.

    Rendering takes ~0.7 s per chart and depends only on the spec and vl-convert's
    versions, both in the file's name; ``cache_dir`` None renders every time.
    """
    if cache_dir is None:
        return vl_convert.vegalite_to_svg(spec)
    key = json.dumps({"spec": spec, "versions": _versions()}, sort_keys=True)
    path = cache_dir / "svg" / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.svg"
    if path.is_file():
        return path.read_text(encoding="utf-8")
    svg = vl_convert.vegalite_to_svg(spec)
    _write(path, svg.encode())
    return svg


def _first_line(path: Path) -> str:
    with path.open(encoding="utf-8") as handle:
        return handle.readline()


def _write(path: Path, data: bytes) -> None:
    """``data`` under ``path``, never seen half written (``blobs.write_whole``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(str(path), data)


def cached_bundle(cache_dir: Path) -> Path:
    """The cache file of the current key (it may not exist yet)."""
    return cache_dir / f"vega-bundle-{bundle_key()[:16]}.js"


def _gz(path: Path) -> Path:
    return path.with_name(path.name + ".gz")


def _compress(path: Path) -> None:
    """``<path>.gz`` beside ``path`` (level 9, no timestamp: identical every build)."""
    _write(_gz(path), gzip.compress(path.read_bytes(), compresslevel=9, mtime=0))


def _is_current(path: Path, header: str) -> bool:
    """The bundle of this key, with its ``.gz`` written after it."""
    gz = _gz(path)
    return (
        path.is_file()
        and _first_line(path) == header
        and gz.is_file()
        and gz.stat().st_mtime >= path.stat().st_mtime
    )


def write_bundle(js_dir: Path, cache_dir: Path | None = None) -> Path:
    """Write ``vega-bundle.js`` and its ``.gz`` into ``js_dir``, bundling on a miss.

    The ``.gz`` (about a third of the size) is what a static server that serves
    precompressed files sends; ``render/mkdocs/hooks.precompress`` keeps it.

    Args:
        js_dir: Folder served as ``generated/assets/js/``.
        cache_dir: Where bundles are kept between builds (``<build dir>/cache``);
            None keeps no cache besides ``js_dir`` itself.

    Returns:
        Path of the bundle (its ``.gz`` is next to it).
    """
    path = js_dir / BUNDLE_NAME
    header = bundle_header()
    if _is_current(path, header):
        return path
    cached = cached_bundle(cache_dir) if cache_dir is not None else None
    if cached is not None and _is_current(cached, header):
        _write(path, cached.read_bytes())
        _write(_gz(path), _gz(cached).read_bytes())
        return path
    text = header + WRAPPER.format(body=vl_convert.javascript_bundle())
    if cached is not None:
        _write(cached, text.encode())
        _compress(cached)
    _write(path, text.encode())
    _compress(path)
    return path
