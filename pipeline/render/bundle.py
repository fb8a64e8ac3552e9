"""The Vega, Vega-Lite and vega-embed JavaScript the site serves itself.

``vl_convert.javascript_bundle()`` bundles the exact library versions vl-convert ships
(Vega 6, Vega-Lite 6, vega-embed 7: what Altair 6 specs need) into one script whose
default snippet sets ``window.vegaEmbed``, ``window.vega`` and ``window.vegaLite``. No
CDN is involved, at build time or in the reader's browser.

The bundle declares top-level ``const``s; in a classic script those would share the
global scope with every other script on the page, so we wrap it in a function scope.
"""

from __future__ import annotations

from pathlib import Path

import vl_convert

BUNDLE_NAME = "vega-bundle.js"


def bundle_header() -> str:
    """First line of the bundle: the versions inside; equal versions skip a rebuild."""
    return (
        f"/* vega {vl_convert.get_vega_version()}, "
        f"vega-lite {vl_convert.get_vegalite_versions()[-1]}, "
        f"vega-embed {vl_convert.get_vega_embed_version()}; "
        "bundled by vl-convert-python for mlperf-ledger */\n"
    )


def write_bundle(js_dir: Path) -> Path:
    """Write ``vega-bundle.js`` into ``js_dir`` unless an identical version is there.

    Bundling takes a couple of seconds, and the result only changes with vl-convert's
    version, so the header line doubles as a cache key.

    Args:
        js_dir: Folder served as ``generated/assets/js/``.

    Returns:
        Path of the bundle.
    """
    path = js_dir / BUNDLE_NAME
    header = bundle_header()
    if path.is_file():
        with path.open(encoding="utf-8") as handle:
            if handle.readline() == header:
                return path
    js_dir.mkdir(parents=True, exist_ok=True)
    body = vl_convert.javascript_bundle()
    tmp = path.with_suffix(".tmp")
    tmp.write_text(f"{header}(() => {{\n{body}\n}})();\n", encoding="utf-8")
    tmp.replace(path)
    return path
