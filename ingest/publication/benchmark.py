"""A benchmark's corpus as a state of its own: where it lives, how its records are registered, and
the marker that says it is complete.

A BEIR corpus is ingested by the library's own jobs (orchestration.benchmark) into
`<home>/benchmarks/<name>-<corpus hash>/`: one registered document per record or group of records
(ingest.parsing.beir), then the same parse, chunk, metadata, embedding, overlays, indexes and
publication as a library. MARKER, written once that state is published, maps BEIR ids to chunk ids
and records the signature and the index settings it was built with; an evaluation reads the
published state and the marker, and never writes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from corpus.config import ServedConfig
from corpus.ids import sha256_hex
from corpus.reading.published import open_published
from corpus.state.layout import StateLayout, atomic_write_json, read_json
from ingest.parsing.beir import BEIR_FORMAT, corpus_documents, document_label, document_source, source_records
from ingest.passages.integrity import load_passages
from ingest.sources.register import Registration, load_source, register_bytes

MARKER = "benchmark.json"
HASH_CHARS = 12


@dataclass(frozen=True)
class BenchmarkState:
    """A published benchmark state: its layout (the working state), signature and BEIR id map."""

    layout: StateLayout
    signature: str
    chunk_of: dict[str, str]  # BEIR corpus id -> chunk_id

    @property
    def corpus_of(self) -> dict[str, str]:
        return {chunk: beir_id for beir_id, chunk in self.chunk_of.items()}


def corpus_hash(corpus: dict[str, dict]) -> str:
    """Hash of the corpus alone (not queries or qrels), so every split shares one state."""
    return sha256_hex(json.dumps(corpus, sort_keys=True, ensure_ascii=False))[:HASH_CHARS]


def benchmark_layout(home: StateLayout, name: str, corpus: dict[str, dict]) -> StateLayout:
    """The state directory of benchmark `name`'s corpus under `home`."""
    return StateLayout(home.benchmark_home(f"{name}-{corpus_hash(corpus)}"))


def index_key(config: ServedConfig) -> str:
    """What the indexes depend on: the model, the vector backend, BM25's parameters and tokenizer
    (selection settings such as min_passage_chars act at query time only)."""
    return sha256_hex(
        json.dumps(
            [
                config.model_key,
                config.embedding_model_path,
                config.vector_backend,
                config.qdrant_url,
                config.bm25_k1,
                config.bm25_b,
                config.analyzer.name,
                config.late_interaction,
            ]
        )
    )[:HASH_CHARS]


def register_corpus(layout: StateLayout, name: str, corpus: dict[str, dict]) -> list[Registration]:
    """Register every document of `corpus` (the caller holds the writer lock inside an intent)."""
    return [
        register_bytes(layout, document_source(records), BEIR_FORMAT, f"{name}/{document_label(records)}")
        for records in corpus_documents(corpus)
    ]


def chunk_ids(layout: StateLayout) -> dict[str, str]:
    """BEIR id -> chunk id over the state's documents (a document's passages follow its records)."""
    found: dict[str, str] = {}
    for document_id in layout.registered_document_ids():
        record, path = load_source(layout, document_id)
        if record.format == BEIR_FORMAT:
            records = source_records(path.read_bytes())
            found.update(
                zip(
                    (beir_id for beir_id, _ in records),
                    (p.chunk_id for p in sorted(load_passages(layout, document_id), key=lambda p: p.ordinal)),
                )
            )
    return found


def write_marker(layout: StateLayout, name: str, corpus: dict[str, dict], signature: str, config: ServedConfig) -> None:
    """Mark the published state complete for `config`'s index settings (the ingest runner, last)."""
    atomic_write_json(
        layout.root / MARKER,
        {
            "name": name,
            "corpus_hash": corpus_hash(corpus),
            "signature": signature,
            "model_key": config.model_key,
            "index_key": index_key(config),
            "chunk_of": chunk_ids(layout),
        },
    )


def read_state(layout: StateLayout, config: ServedConfig) -> BenchmarkState | None:
    """The complete published state under `layout` for `config`'s index settings, else None (never
    built, built with other settings, or its published generation is not the one marked)."""
    marker = layout.root / MARKER
    if not marker.exists():
        return None
    saved = read_json(marker)
    published = open_published(layout)
    try:
        current = published.manifest.get("signature") if published.generation else None
    finally:
        published.close()
    if saved.get("index_key") != index_key(config) or current != saved.get("signature"):
        return None
    return BenchmarkState(layout, saved["signature"], saved["chunk_of"])
