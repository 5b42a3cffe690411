"""kill -9 of an ingestion at several points, then a rerun: coherent, nothing lost or doubled."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from library_slice import slice_files
from corpus.signature import compute_signature, recorded_signature
from corpus.state import StateLayout

FILES = [
    "markdown/quantopian_lecture06_means.md",
    "markdown/quantopian_lecture07_variance.md",
    "markdown/quantopian_lecture08_statistical_moments.md",
    "pdf/schumann_asset_selection_local_search.pdf",
]
REPO = Path(__file__).resolve().parents[2]


def _start(home: Path) -> subprocess.Popen:
    paths = [str(p) for p, _ in slice_files(FILES)]
    env = {**os.environ, "QUANT_RAG_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    return subprocess.Popen([sys.executable, "-m", "cli.main", "ingest", *paths], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _wait_for(predicate, process, timeout=240.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if predicate():
            return True
        time.sleep(0.05)
    return False


# Kill points: after the first registration, after the first passages, after embeddings, during indexing.
KILL_POINTS = {
    "registered": lambda l: len(l.registered_document_ids()) >= 1,
    "chunked": lambda l: any(l.passages(d).exists() for d in l.registered_document_ids()),
    "embedded": lambda l: any(l.documents.glob("*/embeddings-*.npz")),
    "indexing": lambda l: l.signature_file.exists(),
}


@pytest.mark.slow
def test_kill_at_several_points_then_rerun(tmp_path):
    clean = StateLayout(tmp_path / "clean")
    assert _start(clean.root).wait(timeout=600) == 0
    expected = recorded_signature(clean)
    layout = StateLayout(tmp_path / "crashed")
    killed = 0
    for name, predicate in KILL_POINTS.items():
        process = _start(layout.root)
        if _wait_for(lambda: predicate(layout), process):
            os.kill(process.pid, signal.SIGKILL)
            killed += 1
        process.wait(timeout=60)
    assert killed >= 2, "the ingestion finished before most kill points were reached"
    assert _start(layout.root).wait(timeout=600) == 0
    assert len(layout.registered_document_ids()) == len(FILES)
    assert sorted(p.name for p in layout.sources.iterdir()) == sorted(p.name for p in clean.sources.iterdir())
    assert recorded_signature(layout) == compute_signature(layout) == expected
    assert list(layout.journal.glob("*.json")) == []


def test_repair_drops_orphan_sources_and_temp_files_of_killed_writes(tmp_path):
    from orchestration.runner import _drop_orphan_sources

    layout = StateLayout(tmp_path / "state")
    layout.ensure()
    registered = "doc-" + "a" * 16
    (layout.registry / f"{registered}.json").write_text("{}")
    kept = layout.sources / f"{registered}.md"
    kept.write_text("kept")
    orphan = layout.sources / ("doc-" + "b" * 16 + ".md")          # copied, never registered
    orphan.write_text("orphan")
    killed = [layout.sources / f".{orphan.name}.x1y2.tmp", layout.registry / f".{registered}.json.z3.tmp"]
    for path in killed:                                           # atomic writes killed before rename
        path.write_text("partial")
    _drop_orphan_sources(layout)
    assert kept.exists() and not orphan.exists() and not any(p.exists() for p in killed)
    assert layout.registered_document_ids() == [registered]
