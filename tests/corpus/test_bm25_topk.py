"""BM25 top-k by partition: the very rows, scores and order of a stable sort of every scored row."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus.indexes.bm25_store import BM25Index, top_k
from corpus.text.tokenize import Analyzer

# Few distinct values: ties (and zeros: unscored rows) are frequent, so the row-order tie-break
# and the score > 0 rule are exercised.
SCORES = st.sampled_from([0.0, 0.5, 1.0, 1.25, 2.0, 7.0]) | st.floats(0, 10, width=32)


def full_sort(scores: np.ndarray, candidates: np.ndarray, k: int) -> np.ndarray:
    """What BM25Index.search did before: stable sort of every candidate, first k."""
    return candidates[np.argsort(-scores[candidates], kind="stable")][: max(k, 0)]


@settings(max_examples=400, deadline=None)
@given(st.lists(SCORES, max_size=60), st.integers(-1, 70))
def test_top_k_equals_the_stable_full_sort(values, k):
    scores = np.asarray(values, dtype=np.float32)
    assert top_k(scores, k).tolist() == full_sort(scores, np.flatnonzero(scores > 0), k).tolist()


def test_index_search_equals_the_full_sort_on_real_text():
    """BM25Index.search over bm25s's own matrix: same rows and scores as scores() + a stable sort,
    with and without a document filter."""
    words = "garch volatility model returns risk factor the of a in spread cointegration".split()
    rng = np.random.default_rng(7)
    rows = [
        (f"chunk-{i:016x}", f"doc-{i % 7:016x}", " ".join(rng.choice(words, size=rng.integers(3, 30), p=None)))
        for i in range(400)
    ]
    index = BM25Index.in_memory(rows, 1.5, 0.75, Analyzer(), "sig")
    chunk_ids = [c for c, _, _ in sorted(rows)]
    doc_of = {c: d for c, d, _ in rows}
    for query in ("garch the", "risk of the spread", "cointegration", "zebra", "the of a in"):
        for allowed in (None, {f"doc-{i:016x}" for i in (1, 3)}):
            scores = index.scores(query)
            mask = (scores > 0) & np.array([allowed is None or doc_of[c] in allowed for c in chunk_ids])
            expected = [(chunk_ids[i], float(scores[i])) for i in full_sort(scores, np.flatnonzero(mask), 20)]
            assert index.search(query, 20, document_ids=allowed) == expected, (query, allowed)
