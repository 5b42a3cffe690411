"""The main job on the whole bundled library from a fresh state (the slowest test: ~4 min)."""

from __future__ import annotations

import duckdb
import pytest

from corpus.state.layout import StateLayout, read_jsonl
from corpus.state.signature import compute_signature, recorded_signature
from ingest.sources.library import library_files
from orchestration.runner import ingest


@pytest.mark.slow
@pytest.mark.long
def test_all_bundled_documents_are_ingested_and_every_check_passes(tmp_path):
    files = library_files()
    layout = StateLayout(tmp_path / "state")
    report = ingest(layout, files)
    assert report.set_aside == {}
    assert report.checks and all(report.checks.values()), [k for k, v in report.checks.items() if not v]
    ids = layout.registered_document_ids()
    assert len(ids) == len(files) == 77
    on_disk = sum(len(read_jsonl(layout.passages(d))) for d in ids)
    with duckdb.connect(str(layout.catalogue), read_only=True) as connection:
        formats = dict(connection.execute("select format, count(*) from documents group by all").fetchall())
        passages = connection.execute("select count(*) from passages").fetchone()[0]
        coverage = connection.execute(
            "select title_coverage, year_coverage, garbled_documents from coverage"
        ).fetchone()
    assert formats == {
        "pdf": sum(k.startswith("pdf/") for _, k in files),
        "markdown": sum(k.startswith("markdown/") for _, k in files),
    }
    assert passages == on_disk
    assert coverage == (1.0, 1.0, 2)  # every title and year known; the two broken-font PDFs flagged
    assert recorded_signature(layout) == compute_signature(layout)
