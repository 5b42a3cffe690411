"""Semantic coverage on the served state: the question's words map to their token rows, a topic
the passages treat is covered better than one they do not, and a hybrid search's no-answer
probability is read by the question model from the token vectors the search embedded."""

from __future__ import annotations

import numpy as np
import pytest

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from corpus.state.signature import recorded_signature
from serving.abstention import model as abstention
from serving.abstention import terms
from serving.abstention.coverage import question_words, semantic_coverage
from serving.retrieval.engine import Engine
from serving.retrieval.scope import Scope

COVERED = "How does kurtosis describe the tails of a return distribution?"
ABSENT = "How do stablecoin issuers hold reserves to avoid a depeg?"


@pytest.fixture(scope="module")
def engine(served_home):
    layout = StateLayout(served_home)
    return Engine(layout, ServedConfig(), signature=recorded_signature(layout))


def test_words_map_to_their_token_rows(engine):
    _, encoder = engine.parts.tokens
    words = question_words(COVERED, encoder)
    assert [w for w, _ in words][:4] == ["how", "does", "kurtosis", "describe"]
    rows = [r for _, rs in words for r in rs]
    _, tokens = encoder.query(COVERED)
    assert rows == list(range(len(tokens)))  # every row once, in order: no [CLS] or [SEP]
    assert len(dict(words)["kurtosis"]) > 1  # split into word pieces, all of them its rows


def test_a_query_prompt_is_not_part_of_the_question(engine):
    _, encoder = engine.parts.tokens
    plain = question_words(COVERED, encoder)
    prompted = type(encoder).__new__(type(encoder))
    prompted.__dict__.update(encoder.__dict__, query_prompt="query: ")
    words = question_words(COVERED, prompted)
    assert [w for w, _ in words] == [w for w, _ in plain]
    shift = len(encoder.tokenizer.encode("query: ").ids) - 2
    assert [r for _, rs in words for r in rs] == [r + shift for _, rs in plain for r in rs]


def test_a_treated_topic_is_covered_better_than_an_absent_one(engine):
    index, encoder = engine.parts.tokens
    weight = terms.content_weight(terms.term_statistics(engine.parts.bm25))
    scores = {}
    for question in (COVERED, ABSENT):
        found = engine.retrieve(question, "hybrid", Scope(), limit=5)
        assert found.question_tokens is not None
        scores[question] = semantic_coverage(
            question, found.question_tokens, encoder, index, [h.chunk_id for h in found.hits], weight
        )
    assert 0.0 < scores[ABSENT] < scores[COVERED] <= 1.0
    hits = [h.chunk_id for h in engine.retrieve(COVERED, "hybrid", Scope(), limit=5).hits]
    _, framing = encoder.query("what is the")
    assert semantic_coverage("what is the", framing, encoder, index, hits, weight) is None  # no content word
    assert semantic_coverage(COVERED, np.zeros((3, 384), np.float32), encoder, index, ["absent"], weight) is None


def test_hybrid_search_abstains_through_the_question_model(engine):
    covered = engine.retrieve(COVERED, "hybrid", Scope(), limit=5)
    absent = engine.retrieve(ABSENT, "hybrid", Scope(), limit=5)
    statistics = terms.term_statistics(engine.parts.bm25)
    assert abstention.semantic_of(engine.parts, COVERED, covered, statistics) is not None
    p_covered = abstention.no_answer_probability(engine.parts, COVERED, covered)
    p_absent = abstention.no_answer_probability(engine.parts, ABSENT, absent)
    assert p_covered is not None and p_absent is not None and p_absent > p_covered
    lexical = engine.retrieve(COVERED, "bm25", Scope(), limit=5)
    assert lexical.question_tokens is None  # no token vectors: the lexical model reads it
    assert abstention.semantic_of(engine.parts, COVERED, lexical, statistics) is None


def test_with_rephrasings_the_coverage_reads_the_questions_own_first_passages(engine):
    """The question model was fitted on the question's own ranking: a fused search keeps the
    question's first passages for it, a bare one has only its hits."""
    from serving.retrieval.cooperative import QueryInput

    bare = engine.retrieve(COVERED, "hybrid", Scope(), limit=5)
    fused = engine.retrieve(
        COVERED, "hybrid", Scope(), limit=5, others=[QueryInput("alternative", "fat tails and excess kurtosis")]
    )
    assert bare.question_top == () and 0 < len(fused.question_top) <= 5
    statistics = terms.term_statistics(engine.parts.bm25)
    own = semantic_coverage(
        COVERED,
        fused.question_tokens,
        engine.parts.tokens[1],
        engine.parts.tokens[0],
        list(fused.question_top),
        terms.content_weight(statistics),
    )
    assert abstention.semantic_of(engine.parts, COVERED, fused, statistics) == own
