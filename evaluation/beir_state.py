"""A BEIR corpus indexed with the served engine and configuration, into a cached scratch state.

Each BEIR document becomes one registered document with one exact passage (its text; the title is
metadata), so the server's reader, vector store, BM25 and selection run on it unchanged. Rows that
name their source (evaluation.datasets.GROUP_FIELD: TAT-QA's table and paragraphs of one report)
become the passages of one document instead, in corpus order, so document-level rules apply to them
as to a library's documents; every row is still one passage, embedded and scored alone. The state
lives in `layout.scratch / <set>-<corpus hash>/`; a `beir.json` marker, written last, maps BEIR ids
to chunk ids and makes a second run reuse the state (vectors also come from its embedding cache).

The signature record and the indexes are built by the writer's own builders (ingest.signature,
ingest.embed, ingest.vectors, ingest.bm25, ingest.token_index), the ones the pipeline's assets call.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from dataclasses import dataclass
from pathlib import Path

from corpus.config import ServedConfig
from corpus.encoding.embedder import load_embedder
from corpus.encoding.embedding_cache import EmbeddingCache
from corpus.ids import chunk_id_for, document_id_for_bytes, sha256_hex
from corpus.models import (Block, BlockKind, DocumentMetadata, MetadataField, ParsedDocument,
                           Passage, SourceRecord)
from corpus.encoding.onnx_export import ingest_runtime
from corpus.state.layout import StateLayout, atomic_write_json, read_json
from corpus.vectors.vector_store import VectorPoint, open_vector_store
from corpus.versions import CHUNKER_VERSION
from evaluation.datasets import BeirSet
from ingest.bm25 import write_bm25
from ingest.embed import embed_passages
from ingest.signature import record_signature
from ingest.token_index import build_token_index
from ingest.vectors import vector_meta

log = logging.getLogger(__name__)

PARSER = "beir"
PARSER_VERSION = "beir-v1"
MARKER = "beir.json"
HASH_CHARS = 12


@dataclass(frozen=True)
class BeirState:
    layout: StateLayout
    signature: str
    chunk_of: dict[str, str]        # BEIR corpus id -> chunk_id
    built: bool                     # False when the cached state was reused

    @property
    def corpus_of(self) -> dict[str, str]:
        return {chunk: beir_id for beir_id, chunk in self.chunk_of.items()}


def corpus_hash(beir: BeirSet) -> str:
    """Hash of the corpus alone (not queries/qrels), so every split shares one scratch state."""
    return sha256_hex(json.dumps(beir.corpus, sort_keys=True, ensure_ascii=False))[:HASH_CHARS]


def index_key(config: ServedConfig) -> str:
    """What the scratch indexes depend on: the model, the vector backend, BM25's parameters and
    tokenizer (selection settings such as min_passage_chars act at query time only)."""
    return sha256_hex(json.dumps([config.model_key, config.embedding_model_path, config.vector_backend,
                                  config.qdrant_url, config.bm25_k1, config.bm25_b, config.analyzer.name]))[:HASH_CHARS]


def scratch_layout(home: StateLayout, beir: BeirSet) -> StateLayout:
    return StateLayout(home.scratch / f"{beir.name}-{corpus_hash(beir)}")


def _write(path: Path, text: str) -> None:
    # Plain writes: the folder only counts once MARKER, written atomically last, exists.
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


PASSAGE_SEPARATOR = "\n\n"  # between a grouped document's passages in its canonical text


def _grouped(corpus: dict[str, dict]) -> list[list[tuple[str, dict]]]:
    """The corpus's rows as documents: rows sharing a group together (first-seen order), every
    other row alone."""
    documents: dict[str, list[tuple[str, dict]]] = {}
    for beir_id, doc in corpus.items():
        key = f"group:{doc['group']}" if doc.get("group") else f"id:{beir_id}"
        documents.setdefault(key, []).append((beir_id, doc))
    return list(documents.values())


def _title(rows: list[tuple[str, dict]]) -> str | None:
    return next((doc["title"] for _, doc in rows if doc.get("title")), None)


def _write_document(layout: StateLayout, name: str, rows: list[tuple[str, dict]], now: str) -> list[Passage]:
    """Registry entry, canonical text, parsed blocks, one exact passage per row and metadata."""
    if len(rows) == 1:  # an ungrouped row keeps the document id it always had
        beir_id, doc = rows[0]
        source = json.dumps({"_id": beir_id, **doc}, sort_keys=True, ensure_ascii=False).encode()
        label = beir_id
    else:
        source = json.dumps([{"_id": i, **d} for i, d in rows], sort_keys=True, ensure_ascii=False).encode()
        label = rows[0][1]["group"]
    document_id = document_id_for_bytes(source)
    spans, start = [], 0
    for _, doc in rows:
        spans.append((start, start + len(doc["text"])))
        start += len(doc["text"]) + len(PASSAGE_SEPARATOR)
    text = PASSAGE_SEPARATOR.join(doc["text"] for _, doc in rows)
    record = SourceRecord(document_id=document_id, format="markdown", source_sha256=sha256_hex(source),
                          bytes=len(source), original_name=f"{name}/{label}", registered_at=now)
    blocks = [Block(kind=BlockKind.paragraph, start=a, end=b) for a, b in spans if b > a]
    parsed = ParsedDocument(document_id=document_id, parser=PARSER, parser_version=PARSER_VERSION,
                            canonical_sha256=sha256_hex(text), canonical_chars=len(text), blocks=blocks)
    passages = [Passage(chunk_id=chunk_id_for(document_id, a, b, CHUNKER_VERSION), document_id=document_id,
                        ordinal=ordinal, text=text[a:b], ranges=[(a, b)], granularity="exact",
                        block_kinds=[BlockKind.paragraph] if b > a else [])
                for ordinal, (a, b) in enumerate(spans)]
    title = _title(rows)
    meta = DocumentMetadata(document_id=document_id,
                            title=MetadataField(value=title, provenance="manifest" if title else "none"))
    _write(layout.canonical_text(document_id), text)
    _write(layout.parsed_blocks(document_id), parsed.model_dump_json())
    _write(layout.passages(document_id), "".join(p.model_dump_json() + "\n" for p in passages))
    _write(layout.metadata(document_id), meta.model_dump_json())
    _write(layout.registry_entry(document_id), record.model_dump_json())
    return passages


def _index_vectors(layout: StateLayout, config: ServedConfig, signature: str,
                   titled: list[tuple[str | None, Passage]]) -> int:
    """Embed title + passage pieces (cached) and load them into the configured vector store."""
    embedder = load_embedder(config)
    cache = EmbeddingCache(layout.embedding_cache, config.model_key)

    def progress(done: int, total: int) -> None:
        log.info("embedded %d/%d pieces", done, total)
    with ingest_runtime(embedder, layout, config):  # passages embedded as the library's are
        owners, vectors = embed_passages(embedder, cache, titled, progress=progress)
    store = open_vector_store(layout, config, embedder.dimension)
    try:
        store.upsert([VectorPoint(chunk_id=p.chunk_id, document_id=p.document_id, piece=n, vector=v)
                      for (p, n), v in zip(owners, vectors)])
        store.set_meta(vector_meta(config, embedder.dimension, signature,
                                   {p.document_id: "beir" for _, p in titled}))
        return store.count_points()
    finally:
        store.close()


def _export_query_encoder(layout: StateLayout, config: ServedConfig) -> None:
    """The ONNX query encoder the served engine uses, so a benchmark's queries are embedded as a
    served library's are (and without torch). Best effort, as in the vector_index asset."""
    from corpus.encoding.onnx_export import ensure_exported

    try:
        ensure_exported(layout, config)
    except Exception as exc:  # noqa: BLE001 — the engine falls back to transformers, with a warning
        log.warning("ONNX export failed (%s); benchmark queries are embedded with transformers", exc)


def _index_tokens(layout: StateLayout, config: ServedConfig) -> None:
    """The token index late interaction reads (built once; best effort, as the query encoder:
    without it hybrid search keeps the fused order, with a warning)."""
    try:
        build_token_index(layout, config)
    except Exception as exc:  # noqa: BLE001
        log.warning("token index not built (%s); hybrid search keeps the fused order", exc)


def build_beir_state(home: StateLayout, beir: BeirSet, config: ServedConfig) -> BeirState:
    """The scratch state of `beir`'s corpus, built once per corpus hash and configuration."""
    layout = scratch_layout(home, beir)
    marker = layout.root / MARKER
    if marker.exists():
        saved = read_json(marker)
        if saved.get("index_key") == index_key(config):
            _export_query_encoder(layout, config)
            _index_tokens(layout, config)
            return BeirState(layout, saved["signature"], saved["chunk_of"], built=False)
        marker.unlink()  # another model or index setting: re-index (the embedding cache stays)
    layout.root.mkdir(parents=True, exist_ok=True)
    now = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    titled, chunk_of = [], {}
    for rows in _grouped(beir.corpus):
        title = _title(rows)  # the document's, embedded and indexed with each of its passages
        for (beir_id, _), passage in zip(rows, _write_document(layout, beir.name, rows, now)):
            titled.append((title, passage))
            chunk_of[beir_id] = passage.chunk_id
    signature = record_signature(layout)
    points = _index_vectors(layout, config, signature, titled)
    write_bm25(layout, config, signature, titled)
    _export_query_encoder(layout, config)
    _index_tokens(layout, config)
    atomic_write_json(marker, {"name": beir.name, "corpus_hash": corpus_hash(beir), "signature": signature,
                               "model_key": config.model_key, "index_key": index_key(config),
                               "points": points, "chunk_of": chunk_of})
    log.info("indexed %s: %d passages, %d vector points, signature %s",
             beir.name, len(chunk_of), points, signature)
    return BeirState(layout, signature, chunk_of, built=True)
