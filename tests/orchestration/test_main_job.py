"""`quant-rag ingest` as a person runs it: good files and bad ones in one batch, a terminal a person
can read, runs recorded under the named jobs, and each partition carrying its own metadata."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pypdf
import pytest
from library_slice import slice_files

from corpus.config import ServedConfig
from corpus.models import DocumentMetadata, ParsedDocument
from corpus.state.layout import StateLayout, read_json, read_jsonl

REPO = Path(__file__).resolve().parents[2]
GOOD = [
    "pdf/gochez_notes_on_blcop.pdf",
    "markdown/quantopian_lecture40_var_and_cvar.md",
    "markdown/quantopian_lecture28_market_impact_models.md",
]


def _blank_pdf(target: Path) -> None:
    """A valid one-page PDF with no text: it passes validation and fails in parsing."""
    writer = pypdf.PdfWriter()
    writer.add_blank_page(612, 792)
    with open(target, "wb") as handle:
        writer.write(handle)


@pytest.fixture(scope="module")
def main_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("main_job")
    batch = root / "batch"
    batch.mkdir()
    _blank_pdf(batch / "blank.pdf")
    good_pdf = slice_files([GOOD[0]])[0][0]
    (batch / "corrupt.pdf").write_bytes(good_pdf.read_bytes()[:15_000])
    paths = [str(p) for p, _ in slice_files(GOOD)] + [str(batch / "blank.pdf"), str(batch / "corrupt.pdf")]
    layout = StateLayout(root / "state")
    env = {
        **os.environ,
        "QUANT_RAG_HOME": str(layout.root),
        "PYTHONPATH": str(REPO),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    env.pop("DAGSTER_HOME", None)
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "ingest", *paths],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    return layout, done


def test_bad_files_are_set_aside_and_the_good_ones_ingested(main_run):
    layout, done = main_run
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(layout.registered_document_ids()) == len(GOOD)
    for name, cause in (("blank.pdf", "no text could be extracted"), ("corrupt.pdf", "truncated PDF")):
        reason = read_json(layout.quarantine / f"{name}.reason.json")["reason"]
        assert cause in reason and cause in done.stderr
    assert "set aside: 2 file(s)" in done.stderr
    from serving.coherence import check_state

    assert check_state(layout, ServedConfig.from_env()).coherent


def test_the_terminal_shows_stages_not_dagster_events_or_warnings(main_run):
    _, done = main_run
    output = done.stdout + done.stderr
    assert "DEBUG" not in output and "Warning" not in output and "WARNING" not in output, output[-3000:]
    assert "Loading weights" not in output
    for line in (
        "parsed 3 documents",
        "(1 set aside)",
        "chunked 3 documents into",
        "embedded ",
        "vector index:",
        "next:",
        "quant-rag serve",
        "dagster dev",
        "mlflow ui",
    ):
        assert line in output, (line, output)
    assert len(output.splitlines()) <= 40  # one screen


def test_cli_runs_are_recorded_under_the_named_jobs(main_run):
    layout, _ = main_run
    with dg.DagsterInstance.from_config(str(layout.dagster_home)) as instance:
        jobs = [run.job_name for run in instance.get_runs()]
        assert set(jobs) == {"ingest_documents", "refresh_corpus"}, jobs
        assert sorted(instance.get_dynamic_partitions("documents")) == layout.registered_document_ids()


def _latest(instance, asset: str, partition: str) -> dict:
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset), asset_partitions=[partition]), limit=1
    ).records
    return {k: v.value for k, v in records[0].asset_materialization.metadata.items()}


def test_each_partition_carries_its_own_metadata(main_run):
    layout, _ = main_run
    with dg.DagsterInstance.from_config(str(layout.dagster_home)) as instance:
        for document_id in layout.registered_document_ids():
            parsed = ParsedDocument(**read_json(layout.parsed_blocks(document_id)))
            title = DocumentMetadata(**read_json(layout.metadata(document_id))).title.value
            assert _latest(instance, "parsed_document", document_id)["pages"] == (parsed.pages or 0)
            chunked = _latest(instance, "passages", document_id)
            assert chunked["passages"] == len(read_jsonl(layout.passages(document_id)))
            assert chunked["seconds"] >= 0 and chunked["file"].endswith((".pdf", ".md"))
            assert _latest(instance, "document_metadata", document_id)["title"] == title
        pages = [_latest(instance, "parsed_document", d)["pages"] for d in layout.registered_document_ids()]
        assert sorted(pages)[-1] > 0 and pages.count(0) == 2  # the PDF's pages, not the batch's total
