"""A small served state made by the real pipeline code from three library lectures.

The ingest/ stage functions the Dagster assets call (register, parse, chunk, metadata, overlays,
signature, embed, vector index, BM25, token index, graph) run in process, without Dagster, once per session;
embedding runs, as the embed asset does, inside `ingest_runtime`, and the vector index step exports
the ONNX graphs the server loads, as the vector_index asset does (so a server started on this state
loads no torch; `unexported_home` is the state without them, for the fallback).
The bibliographic facts are set apart on purpose through metadata overrides (years 2015, 2019 and
undated; an accented author name) so filters have something to do.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from shared_state import copy_state

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

LIBRARY = Path(__file__).resolve().parents[2] / "library" / "markdown"
FIXTURE_DOCUMENTS = [  # (file, title, authors, year)
    (
        "quantopian_lecture40_var_and_cvar.md",
        "Portfolio Value at Risk and Conditional Value at Risk",
        ["Jonathan Larkin", "Delaney Granizo-Mackenzie"],
        2015,
    ),
    (
        "quantopian_lecture08_statistical_moments.md",
        "Statistical Moments - Skewness and Kurtosis",
        ["Evgenia Nitishinskaya", "Maxwell Margenot"],
        2019,
    ),
    ("quantopian_lecture07_variance.md", "Measures of Dispersion", ["Évgenia Nitishinskaya", "Maxwell Margenot"], None),
]


def _override_metadata(layout, document_id: str, title: str, authors: list[str], year: int | None) -> None:
    """Set the fixture's bibliographic facts as the pipeline's `override` provenance."""
    from corpus.models import DocumentMetadata, MetadataField
    from corpus.state.layout import atomic_write_json, read_json

    meta = DocumentMetadata(**read_json(layout.metadata(document_id)))
    meta.title = MetadataField(value=title, provenance="override")
    meta.authors = MetadataField(value=authors, provenance="override")
    meta.year = MetadataField(value=year, provenance="override" if year else "none")
    atomic_write_json(layout.metadata(document_id), meta.model_dump(mode="json"))


def build_state(root: Path) -> Path:
    """Register, parse, chunk, describe, embed and index FIXTURE_DOCUMENTS under `root` with the
    pipeline's own stage functions (ingest/), without Dagster; return root."""
    from corpus.config import ServedConfig
    from corpus.encoding.bf16_encoder import resolved_passage_runtime
    from corpus.encoding.embedder import load_embedder
    from corpus.encoding.embedding_cache import EmbeddingCache
    from corpus.encoding.onnx_export import ensure_query_graphs, ingest_runtime
    from corpus.state.layout import StateLayout
    from ingest.indexes.bm25 import build_bm25_index
    from ingest.indexes.embed import embed_document
    from ingest.indexes.graph import build_entity_graph
    from ingest.indexes.token_index import build_token_index
    from ingest.indexes.vectors import sync_vector_index
    from ingest.passages.chunk import chunk_stored_document
    from ingest.passages.metadata import extract_stored_metadata
    from ingest.passages.metadata_extract import load_manifest
    from ingest.passages.overlays import write_overlays
    from ingest.passages.parse import parse_document
    from ingest.publication.signature import record_signature
    from ingest.sources.library import MANIFEST_PATH
    from ingest.sources.register import register_file

    layout = StateLayout(root).ensure()
    config = ServedConfig()
    manifest = load_manifest(MANIFEST_PATH)
    document_ids = []
    for name, title, authors, year in FIXTURE_DOCUMENTS:
        registration = register_file(layout, LIBRARY / name, f"markdown/{name}")
        assert registration.document_id and not registration.rejected, registration
        document_id = registration.document_id
        parse_document(layout, document_id)
        chunk_stored_document(layout, document_id)
        extract_stored_metadata(layout, document_id, manifest)
        _override_metadata(layout, document_id, title, authors, year)
        document_ids.append(document_id)
    write_overlays(layout)
    record_signature(layout)
    embedder = load_embedder(config)
    cache = EmbeddingCache(layout.embedding_cache, config.model_key)
    with ingest_runtime(embedder, layout, config) as runtime:
        for document_id in document_ids:
            embed_document(layout, config, embedder, cache, document_id)
    assert runtime == resolved_passage_runtime(config.passage_runtime), runtime
    sync_vector_index(layout, config, embedder.dimension)
    ensure_query_graphs(layout, config)  # as the vector_index asset does (bfloat16 ingest exports none)
    build_bm25_index(layout, config)
    build_token_index(layout, config)
    build_entity_graph(layout)
    return root


@pytest.fixture(scope="session")
def served_home(tmp_path_factory) -> Path:
    """A coherent served state (made by the pipeline's code; see module docstring), built once per
    test run (shared by xdist workers: tests/shared_state.py)."""
    from shared_state import build_once

    return build_once(tmp_path_factory, "served", build_state)


@pytest.fixture(scope="session")
def unexported_home(served_home, tmp_path_factory) -> Path:
    """The served state without its ONNX export (a state made before ingestion exported one)."""
    from corpus.config import ServedConfig
    from corpus.state.layout import StateLayout

    target = tmp_path_factory.mktemp("unexported") / "state"
    copy_state(served_home, target)
    shutil.rmtree(StateLayout(target).onnx_model(ServedConfig().model_key).parent)
    return target


@pytest.fixture()
def served_copy(served_home, tmp_path) -> Path:
    """A private copy of the served state that a test may damage."""
    target = tmp_path / "state"
    return copy_state(served_home, target)
