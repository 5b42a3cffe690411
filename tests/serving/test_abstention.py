"""The abstention probability: corpus term statistics from a real BM25 index, the features, the
models' monotone shape, the model chosen per mode, and an empty scope that never abstains."""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest

from corpus.indexes.bm25_store import BM25Index
from corpus.text.tokenize import Analyzer
from serving.abstention import model as abstention
from serving.abstention import terms

ROWS = [
    (f"c{i}", f"d{i % 3}", text)
    for i, text in enumerate(
        [
            "Value at risk estimates the loss quantile of a portfolio from past returns.",
            "Conditional value at risk averages the losses beyond the value at risk.",
            "Kurtosis measures the tails of the return distribution; skewness its asymmetry.",
            "Historical simulation reads the quantile of the loss from past returns.",
            "The variance of returns is the square of the standard deviation.",
            "Loadings of the first principal component explain most of the variance.",
        ]
    )
]
ANALYZER = Analyzer()


@pytest.fixture(scope="module")
def statistics():
    index = BM25Index.in_memory(ROWS, 1.5, 0.75, ANALYZER, "test")
    return terms.term_statistics(index)


def test_statistics_come_from_the_index_vocabulary(statistics):
    # "returns" is in 3 of 6 passages, "kurtosis" in 1: BM25's idf, and a stem meets its forms
    assert statistics.weight("return") == pytest.approx(terms.TermStatistics.idf(3, 6))
    assert statistics.weight("kurtosi") == pytest.approx(terms.TermStatistics.idf(1, 6))
    assert statistics.known("load") and statistics.known("estim") and not statistics.known("stablecoin")
    assert statistics.weight("stablecoin") == statistics.unseen_idf > statistics.weight("kurtosi")


def test_features_read_vocabulary_passages_and_pairs(statistics):
    passages = [t for _, _, t in ROWS[:2]]
    covered = abstention.features(
        "How is value at risk estimated from past returns?", ANALYZER, statistics, passages, [0.7, 0.6, 0.5, 0.5, 0.4]
    )
    assert covered["vocabulary"] == 1.0 and covered["best_passage"] > 0.8
    assert covered["pair_coverage"] > 0.5
    assert covered["dense_top"] == 0.7 and covered["dense_gap"] == pytest.approx(0.3)
    absent = abstention.features(
        "How do stablecoin issuers manage reserves during a depeg?",
        ANALYZER,
        statistics,
        passages,
        [0.3, 0.29, 0.28, 0.28, 0.27],
    )
    assert absent["vocabulary"] < 0.3 and absent["best_passage"] < 0.3 and absent["pair_coverage"] == 0.0
    assert abstention.probability(absent) > abstention.probability(covered)
    scattered = abstention.features("loss loadings", ANALYZER, statistics, passages, None)
    assert scattered["pair_coverage"] == 0.0 and "dense_top" not in scattered  # the words never meet


def test_models_are_monotone_and_chosen_by_the_inputs_present():
    base = {"vocabulary": 0.8, "best_passage": 0.4, "pair_coverage": 0.4, "dense_top": 0.5, "dense_gap": 0.05}
    for name in ("vocabulary", "best_passage", "pair_coverage", "dense_top", "dense_gap"):
        more = dict(base, **{name: base[name] + 0.1})
        assert abstention.probability(more) < abstention.probability(base), name  # more evidence, less abstention
    assert abstention.model_for(base) == "dense"  # no token vectors: the dense features
    assert abstention.model_for({k: base[k] for k in abstention.LEXICAL_MODEL.features}) == "lexical"
    semantic = dict(base, semantic_coverage=0.6)
    assert abstention.model_for(semantic) == "question"
    for name in ("semantic_coverage", "vocabulary"):
        assert abstention.probability(dict(semantic, **{name: semantic[name] + 0.1})) < abstention.probability(semantic)
    cooperative = dict(semantic, hypothetical_top=0.8, hypothetical_vocabulary=0.95)
    assert abstention.model_for(cooperative) == "cooperative"
    assert abstention.probability(dict(cooperative, hypothetical_top=0.4)) > abstention.probability(cooperative)
    for values in (base, semantic, cooperative):
        assert 0.0 < abstention.probability(values) < 1.0


def test_features_cost_about_a_millisecond(statistics):
    long_passages = [" ".join(t for _, _, t in ROWS) * 4] * abstention.PASSAGES_READ  # ~2,000 characters each
    question = "How is conditional value at risk estimated from the loss quantile of past returns?"
    abstention.features(question, ANALYZER, statistics, long_passages, [0.5] * 5)
    start = time.perf_counter()
    for _ in range(20):
        abstention.features(question, ANALYZER, statistics, long_passages, [0.5] * 5)
    assert (time.perf_counter() - start) / 20 < 0.02  # ~1-2 ms here; loose for a shared machine


@dataclass
class _Found:
    documents_in_scope: int | None
    hits: list
    dense_scores: tuple = ()


def test_an_empty_scope_has_no_probability():
    assert abstention.no_answer_probability(object(), "anything", _Found(0, [])) is None
