"""Cooperative fusion and the second stage as pure functions: contributions, the inputs' periods,
the rescan's placement."""

from __future__ import annotations

from dataclasses import dataclass

from corpus.config import ServedConfig
from serving.retrieval.cooperative import QueryInput, contributions, other_inputs
from serving.retrieval.rescan import leading_documents, rescan
from serving.retrieval.selection import Candidate


@dataclass
class _Passage:
    document_id: str


def _ranking(*ids):
    return [Candidate(c, 1.0 - i / 100) for i, c in enumerate(ids)]


def test_contributions_count_each_input_s_top_and_share_the_fused_score():
    inputs = [QueryInput("question", "q"), QueryInput("alternative", "a", 0.5)]
    rankings = [_ranking("a", "b", "c", "d"), _ranking("d", "c", "x", "y")]
    found = contributions(inputs, rankings, _ranking("a", "d"), k=60, top=2)
    assert [c.in_own_top for c in found] == [1, 1]
    question = 1 / 61 + 1 / 64
    alternative = 0.5 / 61
    assert abs(found[0].share - round(question / (question + alternative), 3)) < 1e-9
    assert abs(found[0].share + found[1].share - 1.0) < 0.002


def test_other_inputs_take_the_weights_and_leave_a_period_out():
    config = ServedConfig(coop_alternative_weight=0.25, coop_hypothetical_weight=0.75)
    found = other_inputs(["GARCH estimation in papers published before 2010", "  "], "A passage.", config, 2026)
    assert [(o.input.kind, o.input.weight) for o in found] == [("alternative", 0.25), ("hypothetical", 0.75)]
    assert found[0].period_ignored and "2010" not in found[0].input.text and found[1].period_ignored is None


def test_rescan_places_a_leading_document_s_best_passages_after_its_first():
    passages = {c: _Passage(c[0]) for c in ("a1", "a2", "a3", "b1", "b2", "c1", "c2", "d1")}
    ranked = _ranking("a1", "b1", "c1", "d1", "a2", "b2")
    best = {"a": ["a3", "a1", "a2"], "b": ["b2", "b1"], "c": ["c1"]}
    out = rescan(ranked, passages, best.__getitem__, documents=2, per_document=2)
    assert [c.chunk_id for c in out] == ["a1", "a3", "b1", "b2", "c1", "d1", "a2"]
    scores = [c.score for c in out]
    assert scores == sorted(scores, reverse=True)
    assert leading_documents(ranked, passages, 3) == ["a", "b", "c"]
    assert rescan(ranked, passages, best.__getitem__, documents=0, per_document=2) == ranked
