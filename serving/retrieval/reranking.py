"""How cross-encoder scores reorder the fused pool: the one home of depth and blending.

Only the top `depth` candidates are scored (a cross-encoder reads every [query, passage] pair, so
its cost is the depth times the passage length); the rest keep their fused order below them. With
weight 1 the scored head is sorted by the cross-encoder alone; below 1 each head candidate scores
(1 − weight)/(k + fused rank) + weight/(k + cross-encoder rank), a rank blend that needs no
calibration of the two scales.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from corpus.encoding.embedder import embedding_prefix
from serving.retrieval.selection import Candidate

if TYPE_CHECKING:
    from serving.retrieval.parts import Parts


def passage_text(title: str | None, section: list[str], text: str) -> str:
    """What the cross-encoder reads for a passage: the embedder's lead line (title > section path),
    then the text — the form evaluation/experiments/finetune trains the library's cross-encoder on."""
    head = embedding_prefix(title, section).strip()
    return f"{head}\n{text}" if head else text


def rerank_head(ranked: list[Candidate], depth: int) -> list[Candidate]:
    """The candidates the cross-encoder scores (0 = the whole pool)."""
    return ranked[:depth] if depth > 0 else list(ranked)


def blend(ranked: list[Candidate], scores: Sequence[float], weight: float = 1.0, k: int = 60) -> list[Candidate]:
    """`ranked` with its head (the first len(scores) candidates) reordered by `scores`; the
    tail follows in its fused order, its scores shifted below the head's lowest."""
    head, tail = ranked[: len(scores)], ranked[len(scores) :]
    by_score = sorted(range(len(head)), key=lambda i: (-scores[i], head[i].chunk_id))
    ce_rank = {i: r for r, i in enumerate(by_score, start=1)}
    if weight >= 1.0:
        mixed = [float(s) for s in scores]
    else:
        mixed = [(1.0 - weight) / (k + i + 1) + weight / (k + ce_rank[i]) for i in range(len(head))]
    out = sorted((Candidate(c.chunk_id, m) for c, m in zip(head, mixed)), key=lambda c: (-c.score, c.chunk_id))
    floor = min((c.score for c in out), default=0.0)
    return out + [Candidate(c.chunk_id, floor - 1.0 - i) for i, c in enumerate(tail)]


def rerank(parts: Parts, text: str, ranked: list[Candidate]) -> list[Candidate]:
    """Cross-encoder rescoring of the fused pool's head (only when a local model is configured)."""
    model, reader, config = parts.reranker, parts.reader, parts.config
    known = [c for c in ranked if c.chunk_id in reader.passages]
    head = [reader.passages[c.chunk_id] for c in rerank_head(known, config.reranker_depth)]
    pairs = [(text, passage_text(reader.title(p.document_id), p.section, p.text)) for p in head]
    scores = [float(s) for s in model.predict(pairs, show_progress_bar=False)] if pairs else []
    return blend(known, scores, config.reranker_weight, config.rrf_k)
