"""Selection: from a ranked candidate pool to the passages worth serving.

Walk the ranking once and keep a candidate unless it is headings only, shorter than the minimum
passage length, a near-duplicate of a passage already kept (per the corpus overlay, which maps a
duplicate chunk to the twin it duplicates), or from a document that already has its quota.
Scores are never modified; order is the retrieval order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from corpus.models import BlockKind, Passage


@dataclass(frozen=True)
class Candidate:
    chunk_id: str
    score: float


def is_headings_only(passage: Passage) -> bool:
    return bool(passage.block_kinds) and all(k == BlockKind.heading for k in passage.block_kinds)


def select(
    ranked: list[Candidate],
    passages: Mapping[str, Passage],
    near_duplicates: dict[str, str],
    *,
    limit: int,
    per_document: int,
    min_chars: int,
    fill: bool = False,
) -> list[Candidate]:
    """Keep at most `limit` candidates, at most `per_document` per document, in ranked order.

    With `fill`, candidates held back only by the per-document cap fill the places left when
    the other documents run out (a narrow scope never starves the answer), in ranked order
    after the capped selection.
    """
    kept: list[Candidate] = []
    held: list[Candidate] = []
    per_doc: dict[str, int] = {}
    groups: set[str] = set()
    for candidate in ranked:
        passage = passages.get(candidate.chunk_id)
        # reference lists and other furniture are left out before (serving.retrieval.furniture), unless asked
        if passage is None or is_headings_only(passage) or len(passage.text.strip()) < min_chars:
            continue
        # A duplicate and its twin share one group: whichever ranks first stands for both.
        group = near_duplicates.get(candidate.chunk_id, candidate.chunk_id)
        if group in groups:
            continue
        groups.add(group)
        if per_doc.get(passage.document_id, 0) >= per_document:
            held.append(candidate)
            continue
        per_doc[passage.document_id] = per_doc.get(passage.document_id, 0) + 1
        kept.append(candidate)
        if len(kept) >= limit:
            return kept
    return kept + held[: limit - len(kept)] if fill else kept


def reciprocal_rank_fusion(
    rankings: list[list[Candidate]], k: int, weights: list[float] | None = None
) -> list[Candidate]:
    """Fuse rankings: score = sum over rankings of weight / (k + rank), rank 1-based.

    Ties are broken by the best rank reached in any ranking, then by chunk id, so the order is
    deterministic.
    """
    scores: dict[str, float] = {}
    best_rank: dict[str, int] = {}
    for ranking, weight in zip(rankings, weights or [1.0] * len(rankings)):
        for rank, candidate in enumerate(ranking, start=1):
            scores[candidate.chunk_id] = scores.get(candidate.chunk_id, 0.0) + weight / (k + rank)
            best_rank[candidate.chunk_id] = min(best_rank.get(candidate.chunk_id, rank), rank)
    return _ordered(scores, best_rank)


def _ordered(scores: dict[str, float], best_rank: dict[str, int]) -> list[Candidate]:
    """Best fused score first; ties by the best rank reached in any ranking, then by chunk id."""
    order = sorted(scores, key=lambda cid: (-scores[cid], best_rank[cid], cid))
    return [Candidate(cid, scores[cid]) for cid in order]


def convex_fusion(rankings: list[list[Candidate]], weights: list[float] | None = None) -> list[Candidate]:
    """Fuse rankings by a weighted sum of their scores, each min-max normalised over its own list.

    Unlike RRF it keeps how far apart two candidates score, not only their order. A candidate
    missing from a ranking gets 0 there (below that ranking's weakest kept candidate). Ties as in
    `reciprocal_rank_fusion`.
    """
    scores: dict[str, float] = {}
    best_rank: dict[str, int] = {}
    for ranking, weight in zip(rankings, weights or [1.0] * len(rankings)):
        normalised = _normalised([c.score for c in ranking])
        for rank, (candidate, norm) in enumerate(zip(ranking, normalised), start=1):
            scores[candidate.chunk_id] = scores.get(candidate.chunk_id, 0.0) + weight * norm
            best_rank[candidate.chunk_id] = min(best_rank.get(candidate.chunk_id, rank), rank)
    return _ordered(scores, best_rank)


def by_late_interaction(ranked: list[Candidate], scores: dict[str, float], weight: float = 1.0) -> list[Candidate]:
    """The candidates with a MaxSim score, best first (ties keep the prior order), then those
    without one in their prior order.

    weight 1: each carries its MaxSim score. Below 1, each carries (1 - weight) x its fused score
    + weight x its MaxSim, both min-max normalised over the pool (as `convex_fusion` does), so the
    fused order keeps a say: a corpus matched by line items and amounts needs it (TAT-QA profile).
    """
    kept = [c for c in ranked if c.chunk_id in scores]
    if weight >= 1.0:
        rescored = [Candidate(c.chunk_id, scores[c.chunk_id]) for c in kept]
    else:
        fused = dict(zip([c.chunk_id for c in ranked], _normalised([c.score for c in ranked])))
        late = _normalised([scores[c.chunk_id] for c in kept])
        rescored = [Candidate(c.chunk_id, (1.0 - weight) * fused[c.chunk_id] + weight * m) for c, m in zip(kept, late)]
    return _by_score(rescored) + [c for c in ranked if c.chunk_id not in scores]


def _normalised(values: list[float]) -> list[float]:
    """Min-max normalised to [0, 1]; all 1.0 when the values are equal."""
    if not values:
        return []
    low, high = min(values), max(values)
    return [(v - low) / (high - low) if high > low else 1.0 for v in values]


def _by_score(rescored: list[Candidate]) -> list[Candidate]:
    """Best rescored first; ties keep the prior order."""
    order = sorted(range(len(rescored)), key=lambda i: (-rescored[i].score, i))
    return [rescored[i] for i in order]


def with_document_best(ranked: list[Candidate], passages: Mapping[str, Passage], weight: float) -> list[Candidate]:
    """Add to each passage's score `weight` times the best score among its document's candidates.

    A document is not lifted by how many of its passages merely touch the question, only by how
    well its best one answers it; its other passages (a table beside the paragraph that names it)
    rise with it. Ties keep the prior order.
    """
    best: dict[str, float] = {}
    for candidate in ranked:
        passage = passages.get(candidate.chunk_id)
        if passage is not None:
            best[passage.document_id] = max(best.get(passage.document_id, candidate.score), candidate.score)
    rescored = [
        Candidate(
            c.chunk_id,
            c.score + weight * best.get(passages[c.chunk_id].document_id if c.chunk_id in passages else "", 0.0),
        )
        for c in ranked
    ]
    return _by_score(rescored)
