"""Wall time of ingesting the bundled library from a fresh state (with every stage's seconds), then
adding one short PDF.

    python benchmarks/ingest_library.py [--home DIR]   (default: a fresh temporary folder)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from ingest.library import LIBRARY_ROOT, library_files  # noqa: E402
from corpus.state import StateLayout  # noqa: E402
from orchestration.runner import ingest  # noqa: E402

LATE_DOCUMENT = "pdf/schumann_repairing_solutions.pdf"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", type=Path, default=None)
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="quant-rag-bench-"))
    shutil.rmtree(home, ignore_errors=True)
    layout = StateLayout(home)
    files = [(p, k) for p, k in library_files() if k != LATE_DOCUMENT]
    started = time.perf_counter()
    report = ingest(layout, files)
    bulk = time.perf_counter() - started
    pages = sum(json.loads(layout.parsed_blocks(d).read_text()).get("pages") or 0
                for d in layout.registered_document_ids())
    started = time.perf_counter()
    late = ingest(layout, [(LIBRARY_ROOT / LATE_DOCUMENT, LATE_DOCUMENT)])
    one = time.perf_counter() - started
    print(json.dumps({
        "documents": report.documents, "pdf_pages": pages, "bulk_seconds": round(bulk, 1),
        "pdf_pages_per_second_overall": round(pages / bulk, 2),
        # each Dagster step's own duration (parse, chunk, embed, … refresh, publish), as the CLI prints them
        "stage_seconds": {asset: round(seconds, 1) for asset, seconds, _ in report.stages},
        "checks_failed": [k for k, v in {**report.checks, **late.checks}.items() if not v],
        "add_one_short_pdf_seconds": round(one, 1), "documents_after": late.documents,
        "signature": late.signature, "home": str(home)}, indent=1))


if __name__ == "__main__":
    main()
