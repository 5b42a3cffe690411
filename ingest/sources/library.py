"""The bundled default library (vendored open-licensed PDFs and Markdown lectures)."""

from __future__ import annotations

import csv
from pathlib import Path

LIBRARY_ROOT = Path(__file__).resolve().parents[2] / "library"
MANIFEST_PATH = LIBRARY_ROOT / "manifest.csv"


def library_files(root: Path = LIBRARY_ROOT) -> list[tuple[Path, str]]:
    """(path, manifest `file` key) for every document listed in the library's manifest."""
    with (root / "manifest.csv").open(encoding="utf-8") as handle:
        return [(root / row["file"], row["file"]) for row in csv.DictReader(handle)]


def manifest_key_by_sha256(root: Path = LIBRARY_ROOT) -> dict[str, str]:
    """sha256 of the bytes → manifest `file` key, so a bundled file is recognised from any path."""
    with (root / "manifest.csv").open(encoding="utf-8") as handle:
        return {row["sha256"]: row["file"] for row in csv.DictReader(handle)}
