"""`discover`: which r-cran-* packages ship a PDF vignette, at which version (apt-file + apt-cache)."""

from __future__ import annotations

import datetime as dt
import platform
from pathlib import Path

from tools.debian_vignettes.build import PackageSpec, write_packages
from tools.debian_vignettes.debian import PDF_PATH_RE, Runner, candidates, pdfs_by_package, run_command


def discover(run: Runner = run_command) -> tuple[list[PackageSpec], list[str]]:
    """(the packages, sorted by name; the names apt-file lists but apt-cache has no version of)."""
    found = pdfs_by_package(run)
    versions = candidates(run, sorted(found))
    specs = [
        PackageSpec(name, c.version, c.architecture, c.deb_sha256, tuple(found[name]))
        for name, c in sorted(versions.items())
        if name in found and c.version
    ]
    return specs, sorted(set(found) - {s.package for s in specs})


def release() -> str:
    """'Debian GNU/Linux 12 (bookworm)' from /etc/os-release, else the platform's own words."""
    try:
        fields = dict(line.split("=", 1) for line in Path("/etc/os-release").read_text().splitlines() if "=" in line)
        return fields.get("PRETTY_NAME", "").strip('"') or platform.platform()
    except OSError:
        return platform.platform()


def write_discovered(out: Path, specs: list[PackageSpec], run: Runner = run_command) -> None:
    try:
        arch = run(["dpkg", "--print-architecture"]).strip()
    except Exception:  # noqa: BLE001 - only a comment line depends on it
        arch = platform.machine()
    comments = [
        "r-cran-* packages whose .deb ships a PDF in an R package's doc/ or in usr/share/doc/<package>/",
        f"made by `python -m tools.debian_vignettes discover` on {release()}, {arch}, {dt.date.today().isoformat()}",
        f"(apt-file search --regexp '{PDF_PATH_RE}'; the versions and .deb sha256 apt-cache showed)",
    ]
    write_packages(out, specs, comments)
