"""kill -9 of an ingestion at many points spread over the run, then a rerun: coherent, nothing lost
or doubled; after every kill a reader opens a coherent published state."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from library_slice import slice_files

from corpus.state.generations import current_generation, pointed_generation
from corpus.state.layout import StateLayout
from corpus.state.signature import compute_signature, recorded_signature

BASE = ["markdown/quantopian_lecture06_means.md"]  # ingested whole first: a published state
FILES = BASE + ["markdown/quantopian_lecture07_variance.md", "markdown/quantopian_lecture08_statistical_moments.md"]
REPO = Path(__file__).resolve().parents[2]


def _start(home: Path, files: list[str] = FILES) -> subprocess.Popen:
    paths = [str(p) for p, _ in slice_files(files)]
    env = {**os.environ, "QUANT_RAG_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "cli.main", "ingest", *paths],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _mtime(path: Path) -> int:
    return path.stat().st_mtime_ns if path.exists() else 0


def _count(paths) -> int:
    return sum(1 for _ in paths)


# Kill points in pipeline order, each a change of the working state since the run started: the
# journal intent, registration, parsing, chunking, embedding, then every corpus-level stage
# (rewritten by the repair that opens each rerun), and finally the publish before its intent closes.
KILL_POINTS = {
    "intent opened": lambda state: _count(state.journal.glob("*.json")),
    "registered": lambda state: len(state.registered_document_ids()),
    "parsed": lambda state: _count(state.documents.glob("*/parsed.json")),
    "chunked": lambda state: _count(state.documents.glob("*/passages.jsonl")),
    "embedded": lambda state: _count(state.documents.glob("*/embeddings-*.npz")),
    "overlays": lambda state: _mtime(state.titles_file),
    "signature": lambda state: _mtime(state.signature_file),
    "bm25": lambda state: sorted(p.name for p in state.bm25.iterdir()) if state.bm25.exists() else [],
    "vectors": lambda state: [p.read_text() for p in sorted(state.vectors.glob("edge/*/CURRENT"))],
    "published": lambda state: _mtime(state.published / "CURRENT"),
}
MIN_KILLS = 8


def _kill_when_changed(layout: StateLayout, probe, timeout=300.0) -> bool:
    """Start an ingest, kill -9 it the moment `probe(layout)` changes; False if it finished first."""
    before = probe(layout)
    process = _start(layout.root)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            changed = probe(layout) != before
        except (OSError, ValueError):  # a file caught mid-rename: look again
            changed = False
        if changed:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=60)
            return True
        time.sleep(0.01)
    process.wait(timeout=60)
    return False


def _published_is_coherent(layout: StateLayout) -> str | None:
    """The signature readers would open now (None before the first publish), checked coherent.
    It may be an intermediate one: the repair that opens a rerun rolls the killed work forward and
    publishes it before the rerun registers the rest."""
    from corpus.config import ServedConfig
    from corpus.reading.published import open_published
    from serving.coherence import check_state

    view = open_published(layout)
    try:
        if view.generation is None:
            return None
        report = check_state(view.layout, ServedConfig())
        assert report.coherent, report.problem()
        return report.signature
    finally:
        view.close()


@pytest.mark.slow
@pytest.mark.long
def test_kill_at_many_points_then_rerun(tmp_path):
    clean = StateLayout(tmp_path / "clean")
    assert _start(clean.root).wait(timeout=600) == 0
    expected = recorded_signature(clean)
    layout = StateLayout(tmp_path / "crashed")
    assert _start(layout.root, BASE).wait(timeout=600) == 0
    assert _published_is_coherent(layout) is not None
    killed = []
    for name, probe in KILL_POINTS.items():
        if _kill_when_changed(layout, probe):
            killed.append(name)
        # whatever the kill interrupted, a reader opening the state now gets a coherent one
        assert _published_is_coherent(layout) is not None, name
    assert len(killed) >= MIN_KILLS, f"killed only at {killed}"
    assert _start(layout.root).wait(timeout=600) == 0
    assert len(layout.registered_document_ids()) == len(FILES)
    assert sorted(p.name for p in layout.sources.iterdir()) == sorted(p.name for p in clean.sources.iterdir())
    assert recorded_signature(layout) == compute_signature(layout) == expected
    assert _published_is_coherent(layout) == expected
    for document_id in layout.registered_document_ids():  # nothing doubled: same passages as clean
        assert layout.passages(document_id).read_bytes() == clean.passages(document_id).read_bytes()
    assert list(layout.journal.glob("*.json")) == []
    assert _served_counts(layout) == _served_counts(clean)  # points and BM25 rows: none doubled
    current = pointed_generation(layout.published).name
    assert sorted(p.name for p in layout.published.iterdir()) == ["CURRENT", current]  # older ones pruned
    _records_match_the_state(layout)


def _records_match_the_state(layout: StateLayout) -> None:
    """Dagster's records after the kills: no run left unfinished, every document's partitions
    materialised (orchestration.killed_runs)."""
    import dagster as dg

    from orchestration.jobs import DOCUMENT_ASSETS
    from orchestration.killed_runs import UNFINISHED
    from orchestration.runner import instance_for

    instance = instance_for(layout)
    assert instance.get_runs(filters=dg.RunsFilter(statuses=UNFINISHED)) == []
    for asset in DOCUMENT_ASSETS:
        assert instance.get_materialized_partitions(dg.AssetKey(asset)) == set(layout.registered_document_ids())


def _served_counts(layout: StateLayout) -> tuple[int, int]:
    """(vector points, BM25 documents) of the published generation."""
    from corpus.config import ServedConfig
    from corpus.indexes.bm25_store import BM25Index
    from corpus.reading.published import open_published
    from corpus.state.layout import read_json
    from corpus.vectors.vector_store import edge_root, open_vector_store
    from corpus.vectors.vector_store_edge import META_FILE

    config, view = ServedConfig(), open_published(layout)
    try:
        served = view.layout
        dimension = read_json(current_generation(edge_root(served, config)) / META_FILE)["dimension"]
        points = open_vector_store(served, config, dimension, read_only=True).count_points()
        bm25 = BM25Index.load(served.bm25, recorded_signature(served), config.analyzer).doc_count
        return points, bm25
    finally:
        view.close()


def test_repair_drops_orphan_sources_and_temp_files_of_killed_writes(tmp_path):
    from orchestration.runner import _drop_orphan_sources

    layout = StateLayout(tmp_path / "state")
    layout.ensure()
    registered = "doc-" + "a" * 16
    (layout.registry / f"{registered}.json").write_text("{}")
    kept = layout.sources / f"{registered}.md"
    kept.write_text("kept")
    orphan = layout.sources / ("doc-" + "b" * 16 + ".md")  # copied, never registered
    orphan.write_text("orphan")
    killed = [layout.sources / f".{orphan.name}.x1y2.tmp", layout.registry / f".{registered}.json.z3.tmp"]
    for path in killed:  # atomic writes killed before rename
        path.write_text("partial")
    _drop_orphan_sources(layout)
    assert kept.exists() and not orphan.exists() and not any(p.exists() for p in killed)
    assert layout.registered_document_ids() == [registered]
