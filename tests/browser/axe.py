"""axe-core, the accessibility engine the browser tests run on the site's pages.

axe-core is a test tool, not part of the site, so it is not committed (the site's own
libraries are, under site/assets/vendor/): ``make axe`` (``python -m
tests.browser.axe``, a step of ``make test``) fetches the pinned version's tarball
from the npm registry, checks it against the registry's published sha512 integrity
(``pipeline.render.vendor``, as for Tabulator), and keeps ``axe.min.js`` under
``build/vendor/axe-core-<version>/``. A later run reads that copy after checking its
sha256, so a fresh CI machine fetches it once and nothing but the npm registry is
ever asked; no CDN. A test that needs it and finds no copy fetches it the same way.

``run_axe`` injects it into an open Playwright page and returns the serious and
critical violations, with their targets, in the form a failure message can show.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from pipeline.render.vendor import VendoredPackage, VendorError, fetch

ROOT = Path(__file__).resolve().parents[2]

AXE = VendoredPackage(
    name="axe-core",
    version="4.14.1",
    integrity=(
        "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtu"
        "FooJpZe37OgudVGtQ=="
    ),
    files={"package/axe.min.js": "axe.min.js", "package/LICENSE": "LICENSE"},
    file_sha256={
        "axe.min.js": "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c",
        "LICENSE": "af175b9d96ee93c21a036152e1b905b0b95304d4ae8c2c921c7609100ba8df7e",
    },
    licence="MPL-2.0",
)
FOLDER = ROOT / "build" / "vendor" / f"{AXE.name}-{AXE.version}"

#: WCAG 2.0-2.2 A and AA rules and axe's best practices; only serious and critical
#: violations fail a test (``IMPACTS``).
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
IMPACTS = ("serious", "critical")

RUN = """async ([tags, impacts, rules]) => {
  const options = rules ? {runOnly: {type: 'rule', values: rules}}
                        : {runOnly: {type: 'tag', values: tags}};
  options.resultTypes = ['violations'];
  const result = await axe.run(document, options);
  return result.violations.filter(v => impacts.includes(v.impact)).map(v => ({
    id: v.id, impact: v.impact,
    targets: v.nodes.map(n => n.target.join(' ')),
    summary: (v.nodes[0] && v.nodes[0].failureSummary || '').split('\\n').slice(0, 3).join(' '),
  }));
}"""


def _copy_is_good(name: str) -> bool:
    path = FOLDER / name
    return (
        path.is_file()
        and hashlib.sha256(path.read_bytes()).hexdigest() == AXE.file_sha256[name]
    )


def ensure() -> Path:
    """The checked ``axe.min.js``, fetched from the npm registry if no good copy."""
    if not all(_copy_is_good(name) for name in AXE.files.values()):
        files = fetch(AXE)
        FOLDER.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            if hashlib.sha256(data).hexdigest() != AXE.file_sha256[name]:
                raise VendorError(f"{AXE.name} {AXE.version}: {name} sha256 differs")
            (FOLDER / name).write_bytes(data)
    return FOLDER / "axe.min.js"


def axe_source() -> str:
    """axe-core's script, to inject into pages."""
    return ensure().read_text(encoding="utf-8")


def run_axe(page, source: str, rules: list[str] | None = None) -> list[dict]:  # noqa: ANN001
    """The page's serious and critical violations (id, impact, targets, summary).

    ``rules``: only these rule ids (a colour-scheme re-run needs only contrast).
    """
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(content=source)
    return page.evaluate(RUN, [TAGS, list(IMPACTS), rules])


def describe(found: dict[str, list[dict]]) -> str:
    """Violations by page, one line per rule with up to five targets."""
    lines = []
    for page, violations in found.items():
        for v in violations:
            more = len(v["targets"]) - 5
            targets = ", ".join(v["targets"][:5]) + (
                f" (+{more} more)" if more > 0 else ""
            )
            lines.append(
                f"{page}: {v['id']} ({v['impact']}, {len(v['targets'])} nodes): "
                f"{targets} -- {v['summary']}"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    path = ensure()
    print(f"{path.relative_to(ROOT)}  {AXE.name} {AXE.version}, integrity checked")
    sys.exit(0)
