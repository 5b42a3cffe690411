"""A small served state built by hand from three library lectures (no Dagster).

Markdown is split into blocks at blank lines (fenced code kept whole), blocks are grouped into
passages under their heading, and the three indexes are built with the corpus layer's own
writers. Years are set apart on purpose (2015, 2019, undated) so filters have something to do.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

LIBRARY = Path(__file__).resolve().parents[2] / "library" / "markdown"
FIXTURE_DOCUMENTS = [  # (file, title, authors, year)
    ("quantopian_lecture40_var_and_cvar.md",
     "Portfolio Value at Risk and Conditional Value at Risk",
     ["Jonathan Larkin", "Delaney Granizo-Mackenzie"], 2015),
    ("quantopian_lecture08_statistical_moments.md", "Statistical Moments - Skewness and Kurtosis",
     ["Evgenia Nitishinskaya", "Maxwell Margenot"], 2019),
    ("quantopian_lecture07_variance.md", "Measures of Dispersion",
     ["Évgenia Nitishinskaya", "Maxwell Margenot"], None),
]
PASSAGE_TARGET = 1200
GRAPH_VOCABULARY = {"value at risk": "measure", "conditional value at risk": "measure",
                    "variance": "measure", "standard deviation": "measure", "skewness": "measure",
                    "kurtosis": "measure", "normal distribution": "market_concept",
                    "returns": "market_concept", "portfolio": "financial_instrument"}
GRAPH_RELATIONS = [("conditional value at risk", "value at risk", "depends_on"),
                   ("standard deviation", "variance", "depends_on"),
                   ("value at risk", "returns", "measures")]


def _blocks(markdown: str):
    from corpus.models import BlockKind, RawBlock

    text = re.sub(r"(?s)<!--.*?-->", "", markdown)
    chunks, current, fenced = [], [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not line.strip() and not fenced:
            if current:
                chunks.append("\n".join(current))
            current = []
        else:
            current.append(line)
    if current:
        chunks.append("\n".join(current))
    for chunk in chunks:
        first = chunk.lstrip()
        if first.startswith("#"):
            level = len(first) - len(first.lstrip("#"))
            yield RawBlock(kind=BlockKind.heading, text=chunk, level=level)
        elif first.startswith("```"):
            yield RawBlock(kind=BlockKind.code, text=chunk)
        elif first.startswith("$$"):
            yield RawBlock(kind=BlockKind.formula, text=chunk)
        elif first.startswith("|"):
            yield RawBlock(kind=BlockKind.table, text=chunk)
        else:
            yield RawBlock(kind=BlockKind.paragraph, text=chunk)


def _passages(document_id: str, canonical: str, blocks):
    from corpus.ids import chunk_id_for
    from corpus.models import BlockKind, Passage
    from corpus.versions import CHUNKER_VERSION

    groups, section, current = [], [], []
    for block in blocks:
        if block.kind == BlockKind.heading:
            if current:
                groups.append((list(section), current))
            current = [block]
            title = canonical[block.start:block.end].lstrip("#").strip()
            section = section[:max(0, (block.level or 1) - 1)] + [title]
            continue
        if current and block.end - current[0].start > PASSAGE_TARGET:
            groups.append((list(section), current))
            current = []
        current.append(block)
    if current:
        groups.append((list(section), current))
    for ordinal, (path, group) in enumerate(groups):
        start, end = group[0].start, group[-1].end
        yield Passage(chunk_id=chunk_id_for(document_id, start, end, CHUNKER_VERSION),
                      document_id=document_id, ordinal=ordinal, section=path,
                      text=canonical[start:end], ranges=[(start, end)], granularity="exact",
                      block_kinds=[b.kind for b in group])


def build_state(root: Path) -> Path:
    """Write documents, signature, vectors, BM25 and graph under `root`; return root."""
    from corpus.canonical import assemble_canonical
    from corpus.config import ServedConfig
    from corpus.ids import document_id_for_bytes, sha256_hex
    from corpus.models import DocumentMetadata, MetadataField, ParsedDocument, SourceRecord
    from corpus.signature import compute_signature
    from corpus.state import (StateLayout, atomic_write_bytes, atomic_write_json,
                              atomic_write_jsonl, atomic_write_text)
    from corpus.versions import PARSER_VERSION

    layout = StateLayout(root).ensure()
    now = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    corpus = []
    for name, title, authors, year in FIXTURE_DOCUMENTS:
        data = (LIBRARY / name).read_bytes()
        document_id = document_id_for_bytes(data)
        atomic_write_bytes(layout.sources / f"{document_id}.md", data)
        atomic_write_json(layout.registry_entry(document_id), SourceRecord(
            document_id=document_id, format="markdown", source_sha256=sha256_hex(data),
            bytes=len(data), original_name=name, library_file=f"markdown/{name}",
            registered_at=now).model_dump(mode="json"))
        canonical, blocks = assemble_canonical(list(_blocks(data.decode("utf-8"))))
        atomic_write_text(layout.canonical_text(document_id), canonical)
        atomic_write_json(layout.parsed_blocks(document_id), ParsedDocument(
            document_id=document_id, parser="fixture-markdown", parser_version=PARSER_VERSION,
            canonical_sha256=sha256_hex(canonical), canonical_chars=len(canonical),
            blocks=blocks).model_dump(mode="json"))
        passages = list(_passages(document_id, canonical, blocks))
        atomic_write_jsonl(layout.passages(document_id), [p.model_dump(mode="json") for p in passages])
        atomic_write_json(layout.metadata(document_id), DocumentMetadata(
            document_id=document_id, title=MetadataField(value=title, provenance="manifest"),
            authors=MetadataField(value=authors, provenance="manifest"),
            year=MetadataField(value=year, provenance="manifest" if year else "none"),
        ).model_dump(mode="json"))
        corpus.append((title, authors, year, passages))
    signature = compute_signature(layout)
    atomic_write_json(layout.signature_file, {"signature": signature})
    config = ServedConfig()
    _build_indexes(layout, config, signature, corpus)
    return root


def _build_indexes(layout, config, signature, corpus) -> None:
    from corpus.bm25_store import build_bm25, indexed_text
    from corpus.embedder import load_embedder
    from corpus.graph_store import write_graph
    from corpus.vector_store import VectorPoint, open_vector_store

    embedder = load_embedder(config)
    rows = [(title, authors, year, p) for title, authors, year, ps in corpus for p in ps]
    vectors = embedder.embed_passages([f"{t}\n{p.text}" for t, _, _, p in rows])
    store = open_vector_store(layout, config, embedder.dimension)
    try:
        store.upsert([VectorPoint(p.chunk_id, p.document_id, 0, v, year, authors)
                      for (_, authors, year, p), v in zip(rows, vectors)])
        store.set_meta({"signature": signature, "model_id": embedder.model_id,
                        "dimension": embedder.dimension})
    finally:
        store.close()
    build_bm25(layout.bm25, signature, [(p.chunk_id, p.document_id,
                                         indexed_text(t, p.section, p.text)) for t, _, _, p in rows],
               config.bm25_k1, config.bm25_b, config.analyzer)
    mentions, relations, seen = [], [], {}
    for _, _, _, p in rows:
        low = p.text.lower()
        for term, kind in GRAPH_VOCABULARY.items():
            for m in re.finditer(rf"\b{re.escape(term)}\b", low):
                mentions.append(_Mention(p.chunk_id, p.document_id, term, kind, m.start(), m.end()))
                seen.setdefault(term, set()).add(p.chunk_id)
    for head, tail, relation in GRAPH_RELATIONS:
        for chunk_id in sorted(seen.get(head, set()) & seen.get(tail, set()))[:3]:
            relations.append(_Relation(head, tail, relation, chunk_id, 1.0))
    write_graph(layout.graph, signature, "fixture-vocabulary", mentions, relations)


class _Mention:
    def __init__(self, chunk_id, document_id, name, entity_type, start, end):
        self.chunk_id, self.document_id, self.name = chunk_id, document_id, name
        self.entity_type, self.start, self.end = entity_type, start, end


class _Relation:
    def __init__(self, head, tail, relation, chunk_id, score):
        self.head, self.tail, self.relation, self.chunk_id, self.score = head, tail, relation, chunk_id, score


@pytest.fixture(scope="session")
def served_home(tmp_path_factory) -> Path:
    """A coherent served state (hand-built; see module docstring)."""
    return build_state(tmp_path_factory.mktemp("served"))


@pytest.fixture()
def served_copy(served_home, tmp_path) -> Path:
    """A private copy of the served state that a test may damage."""
    target = tmp_path / "state"
    shutil.copytree(served_home, target)
    return target
