"""The second stage: the answering passage of a leading document, found among all its passages.

The pool holds the candidates the question's words and vector found across the whole library; a
document's answering passage often shares fewer words with the question than a neighbour of it
does, and stays outside the top of the ranking (or outside the pool). For the first ranking's
leading documents, every passage of the document is ranked by the full ranker restricted to the
document (dense, BM25 and MaxSim, fused by reciprocal rank), and the document's best few by it
follow the document's first passage in the ranking. Only a few per document move, so the passages
of the other documents (a multi-part question's second source) keep places.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import numpy as np

from corpus.models import Passage
from serving.retrieval.first_stage import dense, lexical
from serving.retrieval.selection import Candidate, is_headings_only, reciprocal_rank_fusion

if TYPE_CHECKING:
    from serving.retrieval.cooperative import Ordering
    from serving.retrieval.parts import Parts

# document id -> its passages' chunk ids, best first by the full ranker restricted to the document
DocumentRanker = Callable[[str], list[str]]


def leading_documents(ranked: list[Candidate], passages: Mapping[str, Passage], count: int) -> list[str]:
    """The first `count` distinct documents of the ranking, in ranked order."""
    found: list[str] = []
    for candidate in ranked:
        passage = passages.get(candidate.chunk_id)
        if passage is not None and passage.document_id not in found:
            found.append(passage.document_id)
            if len(found) == count:
                break
    return found


def rescan(
    ranked: list[Candidate],
    passages: Mapping[str, Passage],
    rank_document: DocumentRanker,
    documents: int,
    per_document: int,
) -> list[Candidate]:
    """`ranked` with, right after each of its first `documents` documents' first passage, that
    document's best `per_document` passages by `rank_document` (moved up from further down the
    ranking or brought in from outside it), each carrying the score of the passage it follows so
    scores never rise down the list."""
    if not documents:
        return ranked
    follow: dict[str, list[str]] = {}
    for document_id in leading_documents(ranked, passages, documents):
        follow[document_id] = rank_document(document_id)[:per_document]
    if not follow:
        return ranked
    out: list[Candidate] = []
    placed: set[str] = set()
    for candidate in ranked:
        if candidate.chunk_id in placed:
            continue
        out.append(candidate)
        placed.add(candidate.chunk_id)
        passage = passages.get(candidate.chunk_id)
        best = follow.pop(passage.document_id, None) if passage is not None else None
        for chunk_id in (c for c in best or [] if c not in placed):
            out.append(Candidate(chunk_id, candidate.score))
            placed.add(chunk_id)
    return out


def rank_document(parts: Parts, text: str, vector: np.ndarray, ordering: Ordering, document_id: str) -> list[str]:
    """The document's servable passages ranked by the full ranker restricted to it: the
    question's dense and BM25 rankings and the inputs' weighted MaxSim, fused by reciprocal rank
    (a DocumentRanker once the first four arguments are bound)."""
    ids = [
        p.chunk_id
        for p in parts.reader.by_document.get(document_id, [])
        if not is_headings_only(p) and p.role == "body"
    ]
    if not ids:
        return []
    allowed = {document_id}
    rankings = [dense(parts, text, len(ids), allowed, None, vector), lexical(parts, text, len(ids), allowed)]
    if ordering.late:
        ordering.score(ids)
        strongest = sorted((c for c in ids if c in ordering.scores[0]), key=lambda c: -ordering.strength(c))
        rankings.append([Candidate(c, 0.0) for c in strongest])
    keep = set(ids)
    return [c.chunk_id for c in reciprocal_rank_fusion(rankings, parts.config.rrf_k) if c.chunk_id in keep]
