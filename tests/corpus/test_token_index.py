"""The token index: int8 rows within their bound, round trip on disk, MaxSim as defined."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from corpus.indexes.token_index import TokenIndex, quantise_rows, write_token_index
from serving.retrieval.selection import Candidate, by_late_interaction

DIM = 16


def unit_rows(rng, n: int) -> np.ndarray:
    rows = rng.standard_normal((n, DIM)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@settings(max_examples=60, deadline=None)
@given(
    arrays(
        np.float32,
        st.tuples(st.integers(1, 12), st.just(DIM)),
        elements=st.floats(-1, 1, width=32, allow_subnormal=False),
    )
)
def test_int8_rows_are_within_half_a_step_of_the_float_rows(rows):
    codes, scales = quantise_rows(rows)
    assert codes.dtype == np.int8 and scales.shape == (len(rows),)
    error = np.abs(codes.astype(np.float32) * scales[:, None] - rows)
    assert (error <= scales[:, None] / 2 + 1e-6).all()


def test_maxsim_is_the_mean_of_each_question_token_best_cosine(tmp_path):
    rng = np.random.default_rng(3)
    passages = {f"chunk-{i:016x}": unit_rows(rng, n) for i, n in enumerate((5, 1, 9))}
    write_token_index(tmp_path / "index", "sig", "model", ((c, *quantise_rows(rows)) for c, rows in passages.items()))
    index = TokenIndex(tmp_path / "index")
    assert index.signature == "sig" and set(index.spans) == set(passages)
    question = unit_rows(rng, 4)
    scores = index.maxsim(question, [*passages, "chunk-unknown"])
    assert set(scores) == set(passages)  # a passage without token rows gets no score
    for chunk_id, rows in passages.items():
        expected = float((rows @ question.T).max(axis=0).mean())
        assert abs(scores[chunk_id] - expected) < 0.02
        assert np.allclose(index.rows(chunk_id), rows, atol=1 / 127)


def test_a_passage_holding_the_question_tokens_scores_highest(tmp_path):
    rng = np.random.default_rng(5)
    question = unit_rows(rng, 3)
    holder = np.concatenate([unit_rows(rng, 6), question])  # every question token has a twin here
    others = {f"chunk-{i:016x}": unit_rows(rng, 9) for i in range(4)}
    write_token_index(
        tmp_path / "index",
        "sig",
        "model",
        ((c, *quantise_rows(r)) for c, r in {**others, "chunk-holder": holder}.items()),
    )
    scores = TokenIndex(tmp_path / "index").maxsim(question, ["chunk-holder", *others])
    assert max(scores, key=scores.get) == "chunk-holder" and scores["chunk-holder"] > 0.99


def test_late_interaction_orders_scored_candidates_then_keeps_the_rest_in_place():
    ranked = [Candidate(c, 1.0 / (i + 1)) for i, c in enumerate("abcde")]
    ordered = by_late_interaction(ranked, {"a": 0.2, "c": 0.9, "d": 0.2, "e": 0.5})
    assert [c.chunk_id for c in ordered] == ["c", "e", "a", "d", "b"]  # a before d: tie keeps prior order
    assert [c.score for c in ordered[:4]] == [0.9, 0.5, 0.2, 0.2]


def test_a_late_interaction_weight_below_one_blends_the_normalised_fused_and_maxsim_scores():
    ranked = [Candidate("a", 0.9), Candidate("b", 0.5), Candidate("c", 0.1), Candidate("d", 0.0)]
    maxsim = {"a": 0.40, "b": 0.60, "c": 0.80}  # "d" has no token vectors
    # fused normalised over the pool: a 1.0, b 0.5556, c 0.1111; MaxSim over the scored: 0, 0.5, 1
    half = by_late_interaction(ranked, maxsim, 0.5)
    assert [c.chunk_id for c in half] == ["c", "b", "a", "d"]
    assert [c.score for c in half[:3]] == pytest.approx([0.5556, 0.5278, 0.5], abs=1e-4)
    assert half[3] == ranked[3]  # unscored: last, its fused score kept
    leaning_fused = by_late_interaction(ranked, maxsim, 0.2)
    assert [c.chunk_id for c in leaning_fused] == ["a", "b", "c", "d"]
    assert [c.chunk_id for c in by_late_interaction(ranked, maxsim, 0.0)] == ["a", "b", "c", "d"]
    assert by_late_interaction(ranked, maxsim, 1.0) == by_late_interaction(ranked, maxsim)
