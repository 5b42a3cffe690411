"""The second stage: the answering passage of a leading document, found outside the pool.

The pool holds the candidates the question's words and vector found across the whole library; a
document's answering passage often shares few words with the question while its neighbours do,
and never enters it. For the first ranking's leading documents every passage is scored as the
pool is (MaxSim over token vectors for each input), the best few of each document join the pool,
and the pool is ordered again. Only a few per document join, so the passages of the other
documents (a multi-part question's second source) keep their places.
"""

from __future__ import annotations

from typing import Mapping

from corpus.models import Passage
from serving.cooperative import Ordering
from serving.selection import Candidate


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


def rescan(ranked: list[Candidate], pool: list[Candidate], ordering: Ordering,
           passages: Mapping[str, Passage], by_document: Mapping[str, list[Passage]],
           documents: int, per_document: int) -> list[Candidate]:
    """`ranked` (the ordered `pool`) again, after the best `per_document` passages of each of its
    first `documents` documents that were not in the pool joined it (placed last in the pool's own
    order, so they rise only by their MaxSim). Without token vectors there is nothing to score
    them with, and the ranking is returned as it was."""
    if not documents or not ordering.late:
        return ranked
    members = {c.chunk_id for c in pool}
    added: list[str] = []
    for document_id in leading_documents(ranked, passages, documents):
        outside = [p.chunk_id for p in by_document.get(document_id, []) if p.chunk_id not in members]
        ordering.score(outside)
        outside.sort(key=lambda c: -ordering.strength(c))
        added += outside[:per_document]
    if not added:
        return ranked
    floor = min((c.score for c in pool), default=0.0)
    return ordering.order(pool + [Candidate(c, floor) for c in added])
