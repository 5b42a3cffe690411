"""A folder with its own manifest.csv is read as it lists, and what it declares of each file is
the document's metadata (provenance `manifest`), as the bundled library's manifest is."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from corpus.models import DocumentMetadata
from corpus.state.layout import StateLayout, read_json
from ingest.sources.folder_manifest import NOT_LISTED, THE_MANIFEST
from ingest.sources.intake import collect_paths

LECTURE = """# Notes untitled here

Volatility clusters: large moves follow large moves, and calm follows calm. A GARCH(1,1) model
writes tomorrow's variance as a weighted sum of a long-run level, today's squared return and
today's variance, so a shock decays geometrically at the rate alpha plus beta.
"""


def _folder(root: Path) -> Path:
    folder = root / "corpus"
    (folder / "md").mkdir(parents=True)
    (folder / "sources").mkdir()
    (folder / "md" / "garch.md").write_text(LECTURE, encoding="utf-8")
    (folder / "md" / "stray.md").write_text("# Stray\n\nNot listed, so not read.\n", encoding="utf-8")
    (folder / "sources" / "garch.Rnw").write_text("\\title{Source}\n", encoding="utf-8")
    with (folder / "manifest.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, ["file", "title", "authors", "year", "licence", "package"])
        writer.writeheader()
        writer.writerow(
            {
                "file": "md/garch.md",
                "title": "Volatility Clustering in Practice",
                "authors": "Ann Example; Bob Sample",
                "year": "2019",
                "licence": "GPL-2+",
                "package": "r-cran-example",
            }
        )
    return folder


def test_a_folder_with_a_manifest_gives_the_files_it_lists_and_what_it_declares(tmp_path):
    folder = _folder(tmp_path)
    intake = collect_paths([folder])
    assert [p for p, _ in intake.files] == [(folder / "md" / "garch.md").resolve()]
    declared = intake.declared[(folder / "md" / "garch.md").resolve()]
    assert declared == {
        "title": "Volatility Clustering in Practice",
        "authors": "Ann Example; Bob Sample",
        "year": "2019",
        "licence": "GPL-2+",
    }
    assert intake.skipped[str(folder / "manifest.csv")] == THE_MANIFEST
    assert intake.skipped[str(folder / "md" / "stray.md")] == NOT_LISTED
    assert intake.skipped[str(folder / "sources" / "garch.Rnw")] == NOT_LISTED


def test_a_folder_without_a_manifest_is_walked_whole(tmp_path):
    folder = _folder(tmp_path)
    (folder / "manifest.csv").unlink()
    intake = collect_paths([folder])
    assert len(intake.files) == 3 and not intake.declared and not intake.skipped


@pytest.mark.slow
def test_the_declared_fields_are_the_documents_metadata(tmp_path):
    from orchestration.runner import ingest

    folder = _folder(tmp_path)
    layout = StateLayout(tmp_path / "state")
    report = ingest(layout, collect_paths([folder]))
    assert report.documents == 1 and not report.set_aside, report
    (document_id,) = layout.registered_document_ids()
    meta = DocumentMetadata(**read_json(layout.metadata(document_id)))
    assert (meta.title.value, meta.title.provenance) == ("Volatility Clustering in Practice", "manifest")
    assert meta.author_names == ["Ann Example", "Bob Sample"] and meta.authors.provenance == "manifest"
    assert (meta.year.value, meta.year.provenance) == (2019, "manifest") and meta.licence == "GPL-2+"
    assert str(folder / "md" / "stray.md") in report.skipped
