"""Furniture at serving time (serving.retrieval.furniture): marked passages are ranked only when asked for.

Pure-function tests on hand-made passages, then the real engine on the served state, whose
lectures end in a References section (marked at ingest by the chunk stage)."""

from __future__ import annotations

import pytest

from corpus.config import ServedConfig
from corpus.models import BlockKind, Passage
from corpus.state.layout import StateLayout
from serving.retrieval.furniture import drop_furniture, roles_asked
from serving.retrieval.selection import Candidate, select


def _passage(cid: str, role: str) -> Passage:
    text = "x " * 150
    return Passage(
        chunk_id=cid,
        document_id="doc-00000000000000aa",
        ordinal=0,
        text=text,
        ranges=[(0, len(text))],
        granularity="exact",
        block_kinds=[BlockKind.paragraph],
        role=role,
    )


PASSAGES = {
    c: _passage(c, r)
    for c, r in [
        ("refs", "references"),
        ("toc", "contents"),
        ("title", "title_block"),
        ("idx", "index"),
        ("body", "body"),
        ("body2", "body"),
    ]
}
RANKED = [Candidate(c, 1.0 - i / 10) for i, c in enumerate(["refs", "toc", "title", "idx", "body", "unknown", "body2"])]


def _kept(question: str) -> list[str]:
    return [c.chunk_id for c in drop_furniture(RANKED, PASSAGES, question)]


def test_a_research_question_gets_no_furniture():
    assert _kept("How is CVaR estimated for a portfolio?") == ["body", "unknown", "body2"]


@pytest.mark.parametrize(
    "question, role",
    [
        ("Which references does the CVaR vignette list?", "references"),
        ("the bibliography of the rugarch paper", "references"),
        ("which papers does Boudt cite on CVaR budgets", "references"),
        ("show the table of contents of the PortfolioAnalytics vignette", "contents"),
        ("which chapters cover GARCH models", "contents"),
        ("the subject index entries for kurtosis", "index"),
        ("what is on the title page of the stochvol paper", "title_block"),
        ("who wrote the paper on risk parity portfolios", "title_block"),
    ],
)
def test_a_question_that_asks_for_a_kind_gets_that_kind_only(question, role):
    assert roles_asked(question) == {role}
    kept = _kept(question)
    assert {c for c in kept if c in PASSAGES and PASSAGES[c].role != "body"} == {
        c for c, p in PASSAGES.items() if p.role == role
    }
    assert [c for c in kept if c.startswith("body")] == ["body", "body2"]


@pytest.mark.parametrize(
    "question",
    [
        "How do index tracking portfolios replicate a stock index?",
        "What is a reference portfolio in performance attribution?",
        "Is the content of the signal predictive of returns?",
        "Which section discusses volatility clustering?",
    ],
)
def test_ordinary_uses_of_furniture_words_ask_for_nothing(question):
    assert roles_asked(question) == frozenset()


def test_selection_after_the_filter_keeps_the_ranked_order():
    kept = select(drop_furniture(RANKED, PASSAGES, "value at risk"), PASSAGES, {}, limit=5, per_document=5, min_chars=0)
    assert [c.chunk_id for c in kept] == ["body", "body2"]


# -- the real engine on the served state ---------------------------------------------------------
@pytest.fixture(scope="module")
def context(served_home):
    from serving.mcp.server import ServingContext

    return ServingContext(StateLayout(served_home), ServedConfig())


@pytest.fixture(scope="module")
def engine(context):
    return context.engine


def _roles(engine, question: str) -> list[str]:
    from serving.retrieval.scope import Scope

    found = engine.retrieve(question, "bm25", Scope(), limit=10)
    return [engine.parts.reader.passages[h.chunk_id].role for h in found.hits]


def test_the_served_state_holds_marked_reference_sections(engine):
    roles = [p.role for p in engine.parts.reader.passages.values()]
    assert "references" in roles and roles.count("body") > len(roles) / 2


def test_a_marked_passage_is_returned_only_when_the_question_asks_for_it(engine):
    topic = "Quantitative Investment Analysis DeFusco McLeavey Pinto Runkle"
    assert "references" not in _roles(engine, topic)
    assert "references" in _roles(engine, "references: " + topic)


def test_a_search_that_asks_for_references_says_what_it_returns(context):
    from serving.mcp.server import call_tool
    from serving.tools.search_documents import SPEC

    answer = call_tool(
        SPEC, context, {"query": "bibliography: Quantitative Investment Analysis DeFusco", "mode": "bm25"}
    )
    roles = [r["role"] for r in answer.structured_content["results"]]
    assert "references" in roles
    assert answer.content[0].text.count("role: references") == roles.count("references")
