"""A folder's own manifest: `quant-rag ingest FOLDER` where FOLDER holds a `manifest.csv`.

A corpus built for this project (the bundled library, `python -m tools.debian_vignettes build`)
lists its documents in a `manifest.csv` beside them, with a `file` column (the path under the
folder) and what it declares of each: title, authors, year, venue, licence. Such a folder is read
the way the bundled library is: exactly the files its manifest lists (anything else in it, the
manifest itself and vignette sources included, is reported as skipped, not set aside), and each
file's declared fields travel with its registration to the metadata stage, where a curated
manifest wins over what the PDF says of itself.
"""

from __future__ import annotations

import csv
from pathlib import Path

MANIFEST_NAME = "manifest.csv"
DECLARED_FIELDS = ("title", "authors", "year", "venue", "licence")
NOT_LISTED = f"not listed in its folder's {MANIFEST_NAME} (a folder with a manifest is read as it lists)"
THE_MANIFEST = f"the folder's {MANIFEST_NAME}: read for the documents it lists"


def read_manifest(folder: Path) -> dict[Path, dict[str, str]] | None:
    """{resolved path: declared fields} of the files `folder/manifest.csv` lists; None when the
    folder has none. Rows without a `file`, or whose file is missing, are left out (the walk
    reports missing paths)."""
    path = folder / MANIFEST_NAME
    if not path.is_file():
        return None
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    listed: dict[Path, dict[str, str]] = {}
    for row in rows:
        name = (row.get("file") or "").strip()
        if not name:
            continue
        declared = {k: v.strip() for k in DECLARED_FIELDS if (v := row.get(k) or "").strip()}
        listed[(folder / name).resolve()] = declared
    return listed
