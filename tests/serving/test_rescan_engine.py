"""The second stage on a real served state (QUANT_RAG_RESCAN_DOCUMENTS): the leading document's
best passages, ranked by the full ranker restricted to that document, follow its first passage."""

from __future__ import annotations

import pytest

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from corpus.state.signature import recorded_signature
from serving.retrieval.engine import Engine
from serving.retrieval.scope import Scope

QUESTIONS = (
    "How is conditional value at risk estimated from historical returns?",
    "What does the Sharpe ratio measure?",
    "How does mean reversion show up in a price series?",
)


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_leading_document_s_best_passages_follow_its_first(served_home, question):
    layout = StateLayout(served_home)
    base = Engine(layout, ServedConfig(per_document=10), signature=recorded_signature(layout))
    second = base.variant(base.config.model_copy(update={"rescan_documents": 1, "rescan_per_document": 2}))
    plain, found = (e.retrieve(question, "hybrid", Scope(), limit=10).hits for e in (base, second))
    passages = base.parts.reader.passages
    leading = passages[found[0].chunk_id].document_id
    assert found[0].chunk_id == plain[0].chunk_id  # the first passage stays where it was
    body = [p for p in base.parts.reader.by_document[leading] if p.role == "body"]
    assert len(body) >= 3, "the question should lead to a document with several passages"
    # its best passage other than the first (the best two may include the first itself)
    assert found[1].chunk_id in {p.chunk_id for p in body}
    assert all(a.score >= b.score for a, b in zip(found, found[1:]))  # scores never rise down the list
