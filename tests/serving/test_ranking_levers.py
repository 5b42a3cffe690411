"""Ranking levers: filling past the per-document cap, weighted fusion, the document rule."""

from __future__ import annotations

import pytest

from corpus.models import BlockKind, Passage
from serving.retrieval.selection import Candidate, convex_fusion, reciprocal_rank_fusion, select, with_document_best

LONG = "x " * 150


def _passage(cid: str, doc: str) -> Passage:
    return Passage(
        chunk_id=cid,
        document_id=doc,
        ordinal=0,
        text=LONG,
        ranges=[(0, len(LONG))],
        granularity="exact",
        block_kinds=[BlockKind.paragraph],
    )


def _ranked(ids: list[str]) -> list[Candidate]:
    return [Candidate(c, 1.0 - i / 100) for i, c in enumerate(ids)]


def test_fill_uses_capped_passages_only_when_other_documents_run_out():
    passages = {c: _passage(c, c[0]) for c in ["a1", "a2", "a3", "a4", "b1"]}
    ranked = _ranked(["a1", "a2", "a3", "b1", "a4"])
    capped = select(ranked, passages, {}, limit=4, per_document=2, min_chars=200)
    assert [c.chunk_id for c in capped] == ["a1", "a2", "b1"]  # starved: 3 of 4 asked
    filled = select(ranked, passages, {}, limit=4, per_document=2, min_chars=200, fill=True)
    assert [c.chunk_id for c in filled] == ["a1", "a2", "b1", "a3"]  # the cap's first victim fills
    # with enough documents the cap decides alone, fill or not
    many = {c: _passage(c, c) for c in "pqrs"} | passages
    ranked = _ranked(["a1", "a2", "a3", "p", "q", "r"])
    assert select(ranked, many, {}, limit=5, per_document=2, min_chars=200, fill=True) == select(
        ranked, many, {}, limit=5, per_document=2, min_chars=200
    )


def test_convex_fusion_keeps_score_gaps_that_rrf_discards():
    # dense: a far ahead of b; lexical: b barely ahead of a. RRF sees one first place each (a tie
    # broken by chunk id); the convex sum keeps a's large lead and b's tiny one.
    dense = [Candidate("a", 0.9), Candidate("b", 0.1), Candidate("c", 0.0)]
    lexical = [Candidate("b", 10.0), Candidate("a", 9.9), Candidate("d", 0.0)]
    fused = convex_fusion([dense, lexical], [1.0, 1.0])
    assert [c.chunk_id for c in fused][:2] == ["a", "b"]
    assert fused[0].score == pytest.approx(1.0 + 0.99)
    assert {c.chunk_id: c.score for c in fused}["c"] == 0.0  # the weakest of a list scores 0
    lexical_heavy = convex_fusion([dense, lexical], [0.01, 1.0])
    assert lexical_heavy[0].chunk_id == "b"  # weights move the balance
    assert convex_fusion([[], [Candidate("x", 3.0)]])[0].score == 1.0  # one-item list: no division by 0


def test_weighted_fusion_scales_each_ranking():
    dense, lexical = [Candidate("a", 0.9), Candidate("b", 0.5)], [Candidate("b", 9.0), Candidate("a", 1.0)]
    fused = {c.chunk_id: c.score for c in reciprocal_rank_fusion([dense, lexical], 60, [1.0, 2.0])}
    assert fused["a"] == pytest.approx(1 / 61 + 2 / 62) and fused["b"] == pytest.approx(1 / 62 + 2 / 61)
    assert [c.chunk_id for c in reciprocal_rank_fusion([dense, lexical], 60, [1.0, 2.0])] == ["b", "a"]


def test_document_best_lifts_the_companions_of_a_strong_passage_not_of_many_weak_ones():
    """x has one strong passage and a weak companion; y has three middling ones. The best rule lifts
    x's companion over y's crowd, and keeps x1 first."""
    passages = {c: _passage(c, c[0]) for c in ["x1", "x2", "y1", "y2", "y3"]}
    ranked = [
        Candidate("x1", 0.9),
        Candidate("y1", 0.5),
        Candidate("y2", 0.45),
        Candidate("y3", 0.4),
        Candidate("x2", 0.2),
    ]
    assert [c.chunk_id for c in with_document_best(ranked, passages, 0.0)] == ["x1", "y1", "y2", "y3", "x2"]
    best = with_document_best(ranked, passages, 1.0)
    assert [c.chunk_id for c in best] == ["x1", "x2", "y1", "y2", "y3"]
    assert best[1].score == pytest.approx(0.2 + 0.9) and best[2].score == pytest.approx(0.5 + 0.5)
