"""Metrics against ranx as oracle, and the neighbour-credit rule of the graded nDCG."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ranx import Qrels, Run, evaluate

from evaluation.metrics import (
    GOLD_GAIN,
    METRIC_NAMES,
    NEIGHBOUR_GAIN,
    evaluate_run,
    is_miss,
    ndcg_at_k,
    recall_at_k,
    reciprocal_rank,
)


def _fixture(seed: int = 7, queries: int = 40):
    """Random graded qrels (grades 1..3, some 0) and runs with many tied scores."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(queries):
        pool = [f"d{i}" for i in range(30)]
        judged = rng.choice(pool, size=rng.integers(1, 7), replace=False)
        qrels[f"q{q}"] = {d: int(rng.integers(0, 4)) for d in judged}
        qrels[f"q{q}"][judged[0]] = int(rng.integers(1, 4))  # at least one relevant
        retrieved = rng.choice(pool, size=rng.integers(3, 25), replace=False)
        run[f"q{q}"] = {d: float(rng.integers(0, 4)) for d in retrieved}  # 4 score levels: ties
    return qrels, run


def _ranked(ranx_run: Run) -> dict[str, list[str]]:
    """The order ranx itself uses after sorting (so ties resolve identically)."""
    return {q: list(docs) for q, docs in ranx_run.to_dict().items()}


@pytest.mark.parametrize("seed", [1, 7, 23])
def test_metrics_equal_ranx(seed):
    qrels, run = _fixture(seed)
    ranx_qrels, ranx_run = Qrels(qrels), Run(run)
    ranked = _ranked(ranx_run)
    assert any(len(set(s.values())) < len(s) for s in run.values())  # the fixture has ties
    names = ["ndcg@10", "recall@1", "recall@5", "recall@10", "mrr"]
    oracle = evaluate(ranx_qrels, ranx_run, names, return_mean=False, threads=1)
    ours = evaluate_run(ranked, qrels)
    for name in names:
        expected = np.asarray(oracle[name])
        got = np.array([ours[q][name] for q in ranx_run.get_query_ids()])
        np.testing.assert_allclose(got, expected, atol=1e-9, rtol=0, err_msg=name)
    hits = evaluate(ranx_qrels, ranx_run, "hit_rate@10", return_mean=False, threads=1)
    np.testing.assert_array_equal([ours[q]["miss"] for q in ranx_run.get_query_ids()], 1 - np.asarray(hits))


def test_burges_variant_differs_so_the_choice_matters():
    qrels, run = _fixture(7)
    ours = np.mean([v["ndcg@10"] for v in evaluate_run(_ranked(Run(run)), qrels).values()])
    assert abs(ours - evaluate(Qrels(qrels), Run(run), "ndcg_burges@10", threads=1)) > 1e-3


def test_neighbour_credit_once_per_gold_document():
    gains = {"g1": GOLD_GAIN}
    doc_of = {"g1": "A", "a2": "A", "a3": "A", "b1": "B"}
    ranked = ["b1", "a2", "a3", "g1"]
    dcg = NEIGHBOUR_GAIN / math.log2(3) + GOLD_GAIN / math.log2(5)  # a2 credited, a3 not
    assert ndcg_at_k(ranked, gains, doc_of=doc_of) == pytest.approx(dcg / GOLD_GAIN)
    assert ndcg_at_k(ranked, gains) == pytest.approx(1 / math.log2(5))  # no doc_of: no credit
    assert ndcg_at_k(["g1", "a2"], gains, doc_of=doc_of) == 1.0  # credit never lifts above ideal
    assert ndcg_at_k(["a2", "b1"], gains, doc_of=doc_of) == pytest.approx(1 / 3)
    assert ndcg_at_k(["a2"], {}, doc_of=doc_of) == 0.0


def test_cutoff_and_edge_cases():
    relevant = {"x", "y"}
    ranked = [f"n{i}" for i in range(10)] + ["x"]
    assert is_miss(ranked, relevant, 10) and not is_miss(ranked, relevant, 11)
    assert recall_at_k(ranked, relevant, 11) == 0.5 and recall_at_k(ranked, set(), 5) == 0.0
    assert reciprocal_rank(ranked, relevant) == pytest.approx(1 / 11)
    assert reciprocal_rank([], relevant) == 0.0
    with pytest.raises(ValueError):
        recall_at_k(["x", "x"], relevant, 2)


def test_evaluate_run_skips_negatives_and_fills_missing_runs():
    result = evaluate_run({"q1": ["a"]}, {"q1": {"a": 3}, "q2": {"b": 1}, "neg": {}})
    assert set(result) == {"q1", "q2"} and tuple(result["q1"]) == METRIC_NAMES
    assert result["q1"]["ndcg@10"] == 1.0 and result["q2"]["miss"] == 1.0
