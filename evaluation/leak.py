"""Leak score: how much of a question's wording is lifted from its gold passage (docs/DESIGN.md §8).

    tokens(q) = distinct BM25 tokens of q (corpus.text.tokenize) of ≥ 2 characters, minus stop words
    IDF(t)    = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))   over N texts (BM25's IDF)
    leak(q)   = Σ_{t ∈ tokens(q) ∩ tokens(gold)} IDF(t) / Σ_{t ∈ tokens(q)} IDF(t)   ∈ [0, 1]

A token absent from the IDF table gets the table's largest IDF (it is at least that rare).
A question that copies its passage scores near 1 and is easy for lexical retrieval; a
practitioner's paraphrase scores low.
"""

from __future__ import annotations

import math
from collections import Counter

from bm25s.stopwords import STOPWORDS_EN_PLUS

from corpus.text.tokenize import tokenize

STOP_WORDS = frozenset(STOPWORDS_EN_PLUS)  # NLTK's English list, as shipped with bm25s


def tokens(text: str) -> set[str]:
    """Distinct content tokens of `text`: BM25's tokens, minus stop words and 1-char tokens."""
    return {t for t in tokenize(text) if len(t) > 1 and t not in STOP_WORDS}


def idf_table(texts: list[str]) -> dict[str, float]:
    """BM25 IDF of every content token over `texts` (one text = one retrieval unit)."""
    df = Counter(t for text in texts for t in tokens(text))
    n = len(texts)
    return {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}


def leak_score(question: str, gold_text: str, idf: dict[str, float]) -> float:
    asked = tokens(question)
    if not asked:
        return 0.0
    rarest = max(idf.values(), default=1.0)
    weight = {t: idf.get(t, rarest) for t in asked}
    shared = asked & tokens(gold_text)
    return sum(weight[t] for t in shared) / sum(weight.values())
