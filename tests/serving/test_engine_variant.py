"""An engine is built one way: its constructor takes the parts a caller already holds, and
`Engine.variant` serves another configuration sharing the parts that configuration opens the same way."""

from __future__ import annotations

import pytest

import serving.retrieval.parts
from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from serving.retrieval.engine import Engine


class _Store:
    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def test_the_parts_passed_are_used_as_they_are(tmp_path):
    reader, bm25 = object(), object()
    engine = Engine(StateLayout(tmp_path), ServedConfig(), "sig", reader=reader, bm25=bm25)
    assert engine.parts.is_open("reader") and engine.parts.reader is reader and engine.parts.bm25 is bm25
    assert not engine.parts.is_open("embedder") and not engine.parts.is_open("vectors")


def test_a_variant_shares_what_its_configuration_opens_the_same_way(tmp_path):
    reader, embedder, vectors, bm25, graph = object(), object(), _Store(), object(), object()
    base = Engine(
        StateLayout(tmp_path),
        ServedConfig(),
        "sig",
        reader=reader,
        embedder=embedder,
        vectors=vectors,
        bm25=bm25,
        graph=graph,
    )
    ranking = base.variant(base.config.model_copy(update={"per_document": 3, "rescan_documents": 2}))
    assert (ranking.config.per_document, ranking.parts.signature, ranking.parts.layout) == (3, "sig", base.parts.layout)
    assert (
        ranking.parts.reader,
        ranking.parts.embedder,
        ranking.parts.vectors,
        ranking.parts.bm25,
        ranking.parts.graph,
    ) == (
        reader,
        embedder,
        vectors,
        bm25,
        graph,
    )
    other_bm25 = base.variant(base.config.model_copy(update={"bm25_k1": 0.5}))
    assert other_bm25.parts.reader is reader and not other_bm25.parts.is_open("bm25")  # the state holds k1 1.5's
    torch = base.variant(base.config.model_copy(update={"query_runtime": "torch"}))
    assert torch.parts.vectors is vectors and not torch.parts.is_open("embedder")  # it loads its own encoder
    given = object()
    assert base.variant(base.config, bm25=given).parts.bm25 is given
    with pytest.raises(TypeError):
        base.variant(base.config, tokens=object())


def test_a_shared_part_is_opened_once_by_whichever_engine_uses_it_first(tmp_path, monkeypatch):
    opened = []
    monkeypatch.setattr(serving.retrieval.parts.CorpusReader, "open", lambda layout: opened.append(layout) or object())
    base = Engine(StateLayout(tmp_path), ServedConfig())
    variant = base.variant(base.config.model_copy(update={"per_document": 3}))
    assert variant.parts.reader is base.parts.reader and len(opened) == 1
    assert base.parts.is_open("reader")


def test_closing_a_variant_releases_the_store_it_shares(tmp_path):
    store = _Store()
    base = Engine(StateLayout(tmp_path), ServedConfig(), vectors=store)
    base.variant(base.config.model_copy(update={"per_document": 3})).close()
    assert store.closed == 1 and not base.parts.is_open("vectors")
