"""How cross-encoder scores reorder the fused pool: only the head is scored, the tail keeps its
fused order below it, and the blend weight moves the head from the fused order (0) to the
cross-encoder's (1). The defaults keep the whole pool in the cross-encoder's order."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from corpus.config import ServedConfig
from serving.retrieval.reranking import blend, passage_text, rerank_head
from serving.retrieval.selection import Candidate

FUSED = [Candidate(f"c{i}", 1.0 / (60 + i)) for i in range(1, 7)]  # c1 best ... c6 worst


def ids(ranked):
    return [c.chunk_id for c in ranked]


def test_the_head_follows_the_cross_encoder_and_the_tail_stays_below_in_fused_order():
    head = rerank_head(FUSED, 3)
    out = blend(FUSED, [0.1, 0.2, 0.9])
    assert ids(head) == ["c1", "c2", "c3"]
    assert ids(out) == ["c3", "c2", "c1", "c4", "c5", "c6"]
    assert [c.score for c in out] == sorted((c.score for c in out), reverse=True)


def test_the_blend_weight_runs_from_the_fused_order_to_the_cross_encoder_order():
    scores = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9]  # exactly the reverse of the fused order
    assert ids(blend(FUSED, scores, weight=0.0)) == ids(FUSED)
    assert ids(blend(FUSED, scores, weight=1.0)) == ids(FUSED)[::-1]
    middle = ids(blend(FUSED, [0.1, 0.2, 0.3, 0.4, 0.5, 0.35], weight=0.6))
    assert middle != ids(FUSED) and middle != ids(blend(FUSED, [0.1, 0.2, 0.3, 0.4, 0.5, 0.35]))


def test_defaults_score_the_whole_pool_and_bad_values_are_refused():
    config = ServedConfig()
    assert config.reranker_model_path is None and config.reranker_depth == 0 and config.reranker_weight == 1.0
    assert ids(rerank_head(FUSED, config.reranker_depth)) == ids(FUSED)
    for bad in ({"reranker_depth": -1}, {"reranker_weight": 1.5}):
        with pytest.raises(ValidationError):
            ServedConfig(**bad)
    assert passage_text("Covariance", ["3 Tail risk"], "CVaR is ...") == "Covariance > 3 Tail risk\nCVaR is ..."
    assert passage_text(None, [], "text") == "text"
