"""The shortcuts a search takes for speed give the values of the computation they replace, bit
for bit: MaxSim's maxima scaled after the reduction, and semantic coverage read from the rows MaxSim
already computed instead of multiplying the top passages' rows again."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus.config import ServedConfig
from corpus.indexes.token_index import quantise_rows
from corpus.indexes.token_product import GRAPH_FILE, IntegerProduct, gather_shifted, write_product_graph
from corpus.state.layout import StateLayout
from corpus.state.signature import recorded_signature
from serving.abstention import model as abstention
from serving.abstention import terms
from serving.retrieval.cooperative import QueryInput
from serving.retrieval.engine import Engine
from serving.retrieval.scope import Scope

QUESTIONS = (
    "How does kurtosis describe the tails of a return distribution?",
    "How do stablecoin issuers hold reserves to avoid a depeg?",
    "variance of a portfolio",
)


def _unit_rows(rng: np.random.Generator, count: int, dim: int = 384) -> np.ndarray:
    rows = rng.standard_normal((count, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.mark.parametrize("zero_token", [False, True])
def test_group_maxima_equal_the_maxima_of_the_similarities(tmp_path, zero_token):
    rng = np.random.default_rng(7)
    codes, scales = quantise_rows(_unit_rows(rng, 500))
    question = _unit_rows(rng, 19)
    if zero_token:
        question[4] = 0.0
    write_product_graph(tmp_path / GRAPH_FILE)
    product = IntegerProduct(tmp_path / GRAPH_FILE)
    spans = [(0, 37), (37, 38), (38, 260), (260, 500)]
    rows = gather_shifted(codes, spans)
    starts = np.array([0, 37, 38, 260])
    expected = np.maximum.reduceat(product.similarity(rows, scales, question), starts, axis=0)
    got = product.best(rows, scales, starts, question)
    assert got.dtype == expected.dtype and np.array_equal(got.view(np.int32), expected.view(np.int32))


@pytest.fixture(scope="module")
def engine(served_home):
    layout = StateLayout(served_home)
    return Engine(layout, ServedConfig(), signature=recorded_signature(layout))


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("rephrased", [False, True])
def test_coverage_from_maxsim_rows_equals_the_coverage_computed_again(engine, question, rephrased):
    others = [QueryInput("alternative", "fat tails and excess kurtosis")] if rephrased else []
    found = engine.retrieve(question, "hybrid", Scope(), limit=5, others=others)
    assert found.question_rows  # MaxSim kept the question's rows of every passage it scored
    statistics = terms.term_statistics(engine.parts.bm25)
    shortcut = abstention.semantic_of(engine.parts, question, found, statistics)
    again = abstention.semantic_of(engine.parts, question, dataclasses.replace(found, question_rows={}), statistics)
    assert shortcut is not None and shortcut == again
    index = engine.parts.tokens[0]
    alone = index._best(found.question_tokens, list(found.question_rows))
    assert alone is not None
    for chunk_id, row in zip(*alone):
        assert np.array_equal(found.question_rows[chunk_id], row)


def test_term_statistics_equal_each_terms_idf_taken_one_by_one(engine):
    """Built per distinct document frequency and stemmed without the stemmer's cache: the same
    stems, in the same order, with the same IDF as the term-by-term definition."""
    vocabulary, frequency = engine.parts.bm25.term_document_counts()
    documents = engine.parts.bm25.doc_count
    expected: dict[str, float] = {}
    for term, column in vocabulary.items():
        if column < len(frequency):
            stem, idf = terms.stem(term), terms.TermStatistics.idf(int(frequency[column]), documents)
            expected[stem] = min(idf, expected.get(stem, idf))
    got = terms.TermStatistics(vocabulary, frequency, documents)
    assert list(got._idf_of.items()) == list(expected.items())
    assert got.unseen_idf == terms.TermStatistics.idf(0, documents)


def _tokenize_by_matches(text: str) -> list[str]:
    """corpus.text.tokenize.tokenize as written before its plain-token shortcut: one match at a
    time (the oracle of the test below)."""
    import unicodedata

    from corpus.text import tokenize as module

    folded = unicodedata.normalize("NFKC", text).translate(module._FOLD).casefold()
    tokens: list[str] = []
    for match in module._TOKEN_RE.finditer(folded):
        token = match.group()
        if token.endswith("'s") and len(token) > 2:
            token = token[:-2]
        if "," in token and module._NUMBER_RE.fullmatch(number := module._THOUSANDS_RE.sub("", token)):
            token = number
        tokens.append(token)
        if not token.isalnum():
            tokens.extend(part for part in module._PART_RE.findall(token) if part != token)
    return tokens


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="aZ19,.'s-/&_()’é²ﬁßİ \n\t:;%", max_size=60))
def test_tokens_equal_the_match_by_match_definition(text):
    from corpus.text.tokenize import tokenize

    assert tokenize(text) == _tokenize_by_matches(text)


def test_tokens_of_hard_cases_equal_the_match_by_match_definition():
    from corpus.text.tokenize import tokenize

    for text in ("Engle's GARCH(1,1) at 1,234.5 and 12%", "S&P 500's t-statistic", "ﬁnance İstanbul Straße x²"):
        assert tokenize(text) == _tokenize_by_matches(text)
