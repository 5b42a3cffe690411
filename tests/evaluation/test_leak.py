"""Leak score on hand-computed cases."""

from __future__ import annotations

import math

import pytest

from evaluation.leak import idf_table, leak_score, tokens

TEXTS = [
    "the garch model of volatility",
    "volatility clustering in returns",
    "sharpe ratio of returns",
    "kalman filter for hedge ratio",
]


def test_idf_is_bm25_idf():
    idf = idf_table(TEXTS)
    n = len(TEXTS)
    assert idf["garch"] == pytest.approx(math.log(1 + (n - 1 + 0.5) / 1.5))
    assert idf["volatility"] == pytest.approx(math.log(1 + (n - 2 + 0.5) / 2.5))
    assert "the" not in idf and "of" not in idf  # stop words never count


def test_hand_case():
    idf = idf_table(TEXTS)
    question = "How does the GARCH model treat volatility clustering?"
    # content tokens: garch, model, treat (unseen: max IDF), volatility, clustering
    assert tokens(question) == {"garch", "model", "treat", "volatility", "clustering"}
    gold = "A GARCH model captures volatility."
    weights = {t: idf.get(t, max(idf.values())) for t in tokens(question)}
    expected = (weights["garch"] + weights["model"] + weights["volatility"]) / sum(weights.values())
    assert leak_score(question, gold, idf) == pytest.approx(expected)
    assert leak_score(question, question, idf) == pytest.approx(1.0)
    assert leak_score(question, "Kalman filter", idf) == 0.0
    assert leak_score("what is it?", gold, idf) == 0.0  # nothing but stop words
