"""BM25 hard negatives: for each training pair, the best BM25 passage that is not its answer.

The index holds the training documents' passages only (as the served BM25 indexes them). A
candidate under the same section of the same document is skipped: it most likely answers a
heading or a sentence of that section too, and a false negative teaches the wrong thing.
"""

from __future__ import annotations

from dataclasses import dataclass

from corpus.indexes.bm25_store import BM25Index, indexed_text
from corpus.models import Passage
from corpus.text.tokenize import Analyzer
from experiments.finetune.mining import PseudoQuery, embedded_text

DEPTH = 10  # BM25 candidates looked at per query


@dataclass(frozen=True)
class TrainingTriple:
    query: str
    positive: str
    negative: str
    chunk_id: str  # the positive's passage
    negative_chunk_id: str


def hard_negatives(
    pairs: list[PseudoQuery],
    titled: list[tuple[str | None, Passage]],
    k1: float = 1.5,
    b: float = 0.75,
    per_pair: int = 1,
) -> list[TrainingTriple]:
    """Up to `per_pair` triples per pair, best BM25 negative first (pairs without any are dropped)."""
    rows = [(p.chunk_id, p.document_id, indexed_text(title, p.section, p.text)) for title, p in titled]
    index = BM25Index.in_memory(rows, k1, b, Analyzer("en"), signature="finetune")
    by_id = {p.chunk_id: (title, p) for title, p in titled}
    triples = []
    for pair in pairs:
        own = by_id[pair.chunk_id][1]
        taken = 0
        for chunk_id, _ in index.search(pair.query, DEPTH):
            title, other = by_id[chunk_id]
            if chunk_id == pair.chunk_id or (other.document_id == own.document_id and other.section == own.section):
                continue
            triples.append(
                TrainingTriple(
                    pair.query, pair.positive, embedded_text(title, other.section, other.text), pair.chunk_id, chunk_id
                )
            )
            taken += 1
            if taken == per_pair:
                break
    return triples
