"""Third-party browser libraries the site serves itself, pinned and checked.

The site loads nothing from other hosts, so a library a page needs is committed under
``site/assets/vendor/<name>/`` (minified file with its licence header, the licence
text, and a README naming version and source). Committing beats fetching at build
time here: ``make site`` and ``make test`` stay offline-capable and cannot fail on a
registry outage, and the files are small (Tabulator: 448 KB of JavaScript, 28 KB of
CSS, MIT).

``make vendor`` (``python -m pipeline.render.vendor``) re-creates those files from the
npm registry's tarball of the pinned version, after checking the tarball against the
registry's published sha512 integrity; ``--check`` only compares. Upgrading is: change
``VERSION`` and ``INTEGRITY``, run ``make vendor``, update ``FILE_SHA256`` (a unit test
pins the committed bytes to it, so an accidental edit fails the tests).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import sys
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class VendoredPackage:
    """One npm package, the files the site takes from it, and their digests."""

    name: str
    version: str
    #: The registry's ``dist.integrity`` (Subresource Integrity form, sha512).
    integrity: str
    #: Path inside the tarball -> file name under ``site/assets/vendor/<name>/``.
    files: dict[str, str]
    #: File name -> sha256 of the committed bytes.
    file_sha256: dict[str, str]
    licence: str

    @property
    def tarball_url(self) -> str:
        """Where the npm registry serves the pinned version's tarball."""
        return (
            f"https://registry.npmjs.org/{self.name}/-/{self.name}-{self.version}.tgz"
        )

    @property
    def folder(self) -> Path:
        """The committed folder (docs-relative: ``assets/vendor/<name>``)."""
        return ROOT / "site" / "assets" / "vendor" / self.name


TABULATOR = VendoredPackage(
    name="tabulator-tables",
    version="6.5.3",
    integrity=(
        "sha512-nJ2QaqZzQvd9B4rf4LBnRxfb6sSqA/BX2OsXnSJ2d8k21oXDSTtFtOUrDap04a/6BDGivC/"
        "MByCxy43ugadJIg=="
    ),
    files={
        "package/dist/js/tabulator.min.js": "tabulator.min.js",
        "package/dist/css/tabulator.min.css": "tabulator.min.css",
        "package/LICENSE": "LICENSE",
    },
    file_sha256={
        "tabulator.min.js": (
            "ffac518cb793c672a2f0522b7fc80bf862234d96bb1e581c8aaf7f48f130eafa"
        ),
        "tabulator.min.css": (
            "405ae24218357d80df2a5f3addf138666d035f970dac4ebdb0265d0b5373efcb"
        ),
        "LICENSE": "191a2ee554684e1064c897b432f0e1bc6dfa714ca045d3f6ea2cf692cbd398b7",
    },
    licence="MIT",
)


class VendorError(RuntimeError):
    """A download did not match its pinned integrity, or a file is missing from it."""


def check_integrity(data: bytes, integrity: str) -> None:
    """Raise ``VendorError`` unless ``data`` has the npm ``sha512-...`` digest."""
    algorithm, _, expected = integrity.partition("-")
    if algorithm != "sha512":
        raise VendorError(f"unsupported integrity algorithm {algorithm!r}")
    actual = base64.b64encode(hashlib.sha512(data).digest()).decode()
    if actual != expected:
        raise VendorError(
            f"tarball integrity mismatch: expected sha512-{expected}, got "
            f"sha512-{actual}"
        )


def extract(package: VendoredPackage, tarball: bytes) -> dict[str, bytes]:
    """The pinned files from a verified tarball, by their vendored file name."""
    check_integrity(tarball, package.integrity)
    out: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        for member, name in package.files.items():
            handle = archive.extractfile(member)
            if handle is None:
                raise VendorError(f"{package.tarball_url} has no file {member}")
            out[name] = handle.read()
    return out


def fetch(package: VendoredPackage, timeout_s: float = 60.0) -> dict[str, bytes]:
    """Download the pinned tarball from the npm registry and extract the files."""
    with urllib.request.urlopen(package.tarball_url, timeout=timeout_s) as response:  # noqa: S310 (fixed https URL)
        return extract(package, response.read())


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` compare) the vendored files; exit 1 on a mismatch."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args(argv)
    package = TABULATOR
    files = fetch(package)
    stale = []
    for name, data in files.items():
        path = package.folder / name
        if args.check:
            if not path.is_file() or path.read_bytes() != data:
                stale.append(name)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        print(f"{path.relative_to(ROOT)}  sha256 {hashlib.sha256(data).hexdigest()}")
    if stale:
        print(
            f"{package.name} {package.version}: committed copy differs for "
            f"{', '.join(stale)}; run `make vendor`",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
