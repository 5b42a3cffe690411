"""BM25 store and its tokeniser: identifiers kept whole, filters before top-k, stale detection,
and scores equal to the written-out Lucene BM25 formula."""

from __future__ import annotations

import json
import logging
import math

import pytest

from corpus.indexes.bm25_store import MANIFEST, BM25Index, StaleIndexError, build_bm25, indexed_text
from corpus.text.tokenize import Analyzer, tokenize

K1, B = 1.5, 0.75
ANALYZER = Analyzer()


def cid(i: int) -> str:
    return f"chunk-{i:016x}"


def did(i: int) -> str:
    return f"doc-{i:016x}"


@pytest.mark.parametrize(
    "identifier", ["GARCH(1,1)", "AR(1)", "CVaR", "10-K", "S&P", "t-statistic", "Black-Scholes", "ARMA(p,q)"]
)
def test_tokenizer_keeps_identifiers_whole(identifier):
    tokens = tokenize(f"We fit a {identifier} to the data.")
    assert identifier.casefold() in tokens


def test_tokenizer_folds_case_without_stemming_or_punctuation():
    assert tokenize("Returns RETURNED, returning: Volatility!") == ["returns", "returned", "returning", "volatility"]
    assert tokenize("Engle’s estimator") == ["engle", "estimator"]
    assert tokenize("Müller\u2013Smith") == ["müller-smith", "müller", "smith"]


def test_indexed_text_puts_title_and_section_before_text():
    assert indexed_text("Title", ["1 Intro", "1.1 Data"], "Body.") == "Title\n1 Intro > 1.1 Data\nBody."
    assert indexed_text(None, [], "Body.") == "Body."


@pytest.fixture
def corpus_rows():
    texts = [
        "We estimate a GARCH(1,1) model of daily volatility.",
        "GARCH models and their extensions describe volatility clustering in returns.",
        "An AR(1) process for the spread, tested with a t-statistic.",
        "Expected shortfall, also called CVaR, of the S&P 500 index.",
        "Risk factors disclosed in the 10-K annual filing.",
        "GARCH volatility forecasts for option pricing, GARCH again.",
    ]
    return [(cid(i), did(i % 3), text) for i, text in enumerate(texts)]


def test_search_finds_the_exact_identifier(tmp_path, corpus_rows):
    build_bm25(tmp_path, "sig-a", corpus_rows, K1, B, ANALYZER)
    index = BM25Index.load(tmp_path, "sig-a", ANALYZER)
    assert index.doc_count == len(corpus_rows) and index.signature == "sig-a"
    for query, expected in (("GARCH(1,1)", 0), ("AR(1) spread", 2), ("CVaR", 3), ("10-K", 4)):
        assert index.search(query, 3)[0][0] == cid(expected), query
    assert index.search("zebra", 5) == []


def test_document_filter_applies_before_top_k(tmp_path, corpus_rows):
    build_bm25(tmp_path, "sig-a", corpus_rows, K1, B, ANALYZER)
    index = BM25Index.load(tmp_path, "sig-a", ANALYZER)
    unfiltered = index.search("GARCH volatility", 10)
    wanted = {did(1)}
    filtered = index.search("GARCH volatility", 1, document_ids=wanted)
    assert filtered and filtered[0][0] not in [c for c, _ in unfiltered[:1]]
    assert filtered == [(c, s) for c, s in unfiltered if c in {cid(1), cid(4)}][:1]
    assert index.search("GARCH", 5, document_ids=set()) == []
    assert index.search("GARCH", 5, document_ids={"doc-ffffffffffffffff"}) == []


@pytest.mark.parametrize("k", [1, 3, 40])
def test_a_scoped_search_is_the_full_ranking_filtered_ties_by_row(tmp_path, k):
    # many tying rows over 12 documents: the scoped ranking must be the unscoped one, filtered
    words = ["garch", "volatility", "spread", "kurtosis", "factor"]
    rows = [
        (cid(i), did(i % 12), " ".join(words[j] for j in range(5) if (i >> j) & 1 or j == i % 5)) for i in range(96)
    ]
    build_bm25(tmp_path, "sig-s", rows, K1, B, ANALYZER)
    index = BM25Index.load(tmp_path, "sig-s", ANALYZER)
    owner = {c: d for c, d, _ in rows}
    for query in ("garch volatility", "spread", "kurtosis factor garch"):
        full = index.search(query, len(rows))
        for scope in ({did(0)}, {did(1), did(5), did(7)}, {did(i) for i in range(0, 12, 2)}):
            assert index.search(query, k, document_ids=scope) == [h for h in full if owner[h[0]] in scope][:k]


def test_scores_match_the_bm25_formula(tmp_path):
    texts = ["garch volatility volatility model", "volatility of returns", "cointegration of pairs spread trading"]
    rows = [(cid(i), did(0), t) for i, t in enumerate(texts)]
    build_bm25(tmp_path, "sig-f", rows, K1, B, ANALYZER)
    index = BM25Index.load(tmp_path, "sig-f", ANALYZER)
    docs = [tokenize(t) for t in texts]
    avgdl = sum(map(len, docs)) / len(docs)
    query = "volatility garch garch spread"
    expected = []
    for doc in docs:
        score = 0.0
        for term in set(tokenize(query)):
            df = sum(term in d for d in docs)
            tf = doc.count(term)
            idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
            score += idf * tf / (tf + K1 * (1 - B + B * len(doc) / avgdl))
        expected.append(score)
    assert list(index.scores(query)) == pytest.approx(expected, rel=1e-5)
    ranked = [c for c, _ in index.search(query, 3)]
    assert ranked == [cid(i) for i in sorted(range(3), key=lambda i: -expected[i])]


def test_ties_break_by_chunk_id(tmp_path):
    rows = [(cid(9), did(0), "momentum factor"), (cid(2), did(1), "momentum factor"), (cid(5), did(2), "momentum")]
    build_bm25(tmp_path, "sig-t", rows, K1, B, ANALYZER)
    hits = BM25Index.load(tmp_path, "sig-t", ANALYZER).search("momentum factor", 3)
    assert [c for c, _ in hits[:2]] == [cid(2), cid(9)] and hits[0][1] == hits[1][1]


def test_stale_index_is_refused_with_what_to_rebuild(tmp_path, corpus_rows):
    path = build_bm25(tmp_path, "sig-a", corpus_rows, K1, B, ANALYZER)
    with pytest.raises(StaleIndexError, match="rebuild the bm25_index"):
        BM25Index.load(tmp_path, "sig-b", ANALYZER)
    manifest = json.loads((path / MANIFEST).read_text())
    (path / MANIFEST).write_text(json.dumps({**manifest, "signature": "sig-z"}))
    with pytest.raises(StaleIndexError, match="sig-z"):
        BM25Index.load(tmp_path, "sig-a", ANALYZER)
    (path / MANIFEST).write_text(json.dumps({**manifest, "analyzer": "tok-v0/stop=none/stem=none"}))
    with pytest.raises(StaleIndexError, match="analyser"):
        BM25Index.load(tmp_path, "sig-a", ANALYZER)
    with pytest.raises(StaleIndexError, match="analyser"):  # served with another analyser than built
        BM25Index.load(tmp_path, "sig-a", Analyzer("en", "english"))
    (path / MANIFEST).write_text(json.dumps(manifest))
    BM25Index.load(tmp_path, "sig-a", ANALYZER, k1=K1, b=B)
    with pytest.raises(StaleIndexError, match=f"built with k1={K1}, configured k1=0.7"):
        BM25Index.load(tmp_path, "sig-a", ANALYZER, k1=0.7, b=B)  # bm25s stored scores under K1
    with pytest.raises(StaleIndexError, match="configured b=0.5"):
        BM25Index.load(tmp_path, "sig-a", ANALYZER, k1=K1, b=0.5)
    (path / "rows.json").write_text(json.dumps([[cid(0), did(0)]]))
    with pytest.raises(StaleIndexError, match="sha256"):
        BM25Index.load(tmp_path, "sig-a", ANALYZER)


def test_rebuild_replaces_the_index_atomically(tmp_path, corpus_rows):
    build_bm25(tmp_path, "sig-a", corpus_rows, K1, B, ANALYZER)
    build_bm25(tmp_path, "sig-a", corpus_rows[:2], K1, B, ANALYZER)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sig-a"]
    assert BM25Index.load(tmp_path, "sig-a", ANALYZER).doc_count == 2
    with pytest.raises(ValueError):
        build_bm25(tmp_path, "sig-e", [], K1, B, ANALYZER)


def test_analyzer_drops_stop_words_and_stems_plain_words_only():
    analyzer = Analyzer("en_plus", "english")
    assert analyzer("How are the returns estimated?") == ["return", "estim"]
    # identifiers and numbers are never stemmed; a thousands separator goes, a decimal stays
    assert analyzer("GARCH(1,1) volatilities of 1,234.5 and 12%") == ["garch(1,1)", "garch", "volatil", "1234.5", "12"]
    assert Analyzer().name != analyzer.name  # the manifest tells the two apart


def test_in_memory_index_ranks_like_the_stored_one(tmp_path, corpus_rows):
    build_bm25(tmp_path, "sig-m", corpus_rows, K1, B, ANALYZER)
    stored = BM25Index.load(tmp_path, "sig-m", ANALYZER)
    memory = BM25Index.in_memory(corpus_rows, K1, B, ANALYZER, "sig-m")
    for query in ("momentum factor", "GARCH volatility", "value at risk"):
        assert stored.search(query, 5) == memory.search(query, 5)


def test_building_an_index_logs_nothing_below_warning(caplog, corpus_rows):
    # bm25s sets its own logger to DEBUG; an evaluation arm building an index in memory must not
    # print "Building index from tokens" into the report.
    with caplog.at_level(logging.DEBUG):
        BM25Index.in_memory(corpus_rows, 1.5, 0.75, Analyzer(), "sig")
    assert [r for r in caplog.records if r.name.startswith("bm25s") and r.levelno < logging.WARNING] == []


def test_chunk_ids_name_the_rows_scores_returns(corpus_rows):
    index = BM25Index.in_memory(corpus_rows, K1, B, ANALYZER, "sig-rows")
    assert index.chunk_ids == [row[0] for row in corpus_rows]
    query = "CVaR"
    scores = index.scores(query)
    assert len(scores) == len(index.chunk_ids)
    best = max(range(len(scores)), key=lambda i: (scores[i], -i))
    assert index.search(query, 1)[0][0] == index.chunk_ids[best]


def test_a_large_state_maps_its_arrays_instead_of_reading_them(tmp_path, corpus_rows, monkeypatch):
    """From LARGE_STATE_PASSAGES the index's arrays are memory-mapped (file pages, not the
    server's own memory); below it they are read; both rank the same."""
    import numpy as np

    import corpus.indexes.bm25_store as bm25_store

    build_bm25(tmp_path, "sig-m", corpus_rows, K1, B, ANALYZER)
    small = BM25Index.load(tmp_path, "sig-m", ANALYZER)
    monkeypatch.setattr(bm25_store, "LARGE_STATE_PASSAGES", len(corpus_rows))
    large = BM25Index.load(tmp_path, "sig-m", ANALYZER)
    assert not isinstance(small._retriever.scores["data"], np.memmap)
    assert isinstance(large._retriever.scores["data"], np.memmap)
    query = corpus_rows[0][2].split()[0]
    assert large.search(query, 5) == small.search(query, 5) != []
