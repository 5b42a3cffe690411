"""BM25's settings after ingest: an index built with other k1, b or analyser is refused by the
server and rebuilt by the next ingest's BM25 step."""

from __future__ import annotations

import pytest

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from corpus.state.signature import recorded_signature
from ingest.indexes.bm25 import build_bm25_index
from serving.answer.errors import IncoherentState
from serving.retrieval.engine import Engine
from serving.retrieval.scope import Scope

QUESTION = "How is conditional value at risk estimated from historical returns?"


def test_a_bm25_setting_changed_after_ingest_is_refused_then_rebuilt_by_the_next_ingest(served_copy):
    """bm25s stores scores computed with k1 and b, and the analyser decides the terms."""
    layout = StateLayout(served_copy)
    signature = recorded_signature(layout)
    for update in ({"bm25_k1": 0.5}, {"bm25_stopwords": "en"}):
        config = ServedConfig().model_copy(update=update)
        with pytest.raises(IncoherentState, match="stale"):
            Engine(layout, config, signature=signature).retrieve(QUESTION, "bm25", Scope(), limit=5)
        assert build_bm25_index(layout, config)["rebuilt"] == 1
        assert build_bm25_index(layout, config)["rebuilt"] == 0  # valid now: not rebuilt again
        assert Engine(layout, config, signature=signature).retrieve(QUESTION, "bm25", Scope(), limit=5).hits
