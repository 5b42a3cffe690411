"""Import boundaries per entry point: importing a package's entry modules in a fresh interpreter
loads no module that package must not depend on (checked in sys.modules, so indirect and
module-level imports of third parties count)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PIPELINE = {"dagster", "assets", "orchestration"}
MODELS = {"torch", "sentence_transformers", "transformers"}

BOUNDARIES = {  # entry modules -> top-level modules they must not load
    (
        "corpus.state.layout",
        "corpus.reading.reader",
        "corpus.state.signature",
        "corpus.vectors.vector_store",
        "corpus.indexes.bm25_store",
        "corpus.graph.graph_store",
        "corpus.encoding.embedder",
        "corpus.encoding.query_encoder",
    ): PIPELINE | {"mcp", "ingest", "serving", "evaluation"} | MODELS,
    (
        "ingest.passages.parse",
        "ingest.passages.chunk",
        "ingest.passages.metadata",
        "ingest.passages.overlays",
        "ingest.publication.signature",
        "ingest.indexes.embed",
        "ingest.indexes.vectors",
        "ingest.indexes.bm25",
        "ingest.indexes.graph",
        "ingest.indexes.catalogue",
        "ingest.publication.checks",
    ): PIPELINE | {"mcp", "serving", "evaluation"},
    ("serving.server", "serving.cli"): PIPELINE | {"ingest", "evaluation"} | MODELS,
    ("evaluation.cli", "evaluation.runs"): PIPELINE | {"mcp"},
}


def loaded_top_levels(modules: tuple[str, ...]) -> set[str]:
    code = (
        "import importlib, sys\n"
        f"for name in {list(modules)!r}: importlib.import_module(name)\n"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    return set(result.stdout.split())


@pytest.mark.parametrize("modules", list(BOUNDARIES), ids=lambda m: m[0].split(".")[0])
def test_entry_points_load_no_forbidden_module(modules):
    assert loaded_top_levels(modules) & BOUNDARIES[modules] == set()


def test_the_check_sees_what_is_loaded():
    assert "dagster" in loaded_top_levels(("orchestration.definitions",))
