"""Which calls the server answers on its event loop: cheap tools once the reader is open, searches
once every part they need is open; verifications (which read the cancel flag) never."""

from __future__ import annotations

import dataclasses

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from serving.mcp.server import ServingContext, runs_inline, tool_specs


def _context(home, **config) -> ServingContext:
    return ServingContext(StateLayout(home), ServedConfig(**config))


def test_a_search_runs_inline_only_once_everything_it_needs_is_open(served_home):
    specs = tool_specs()
    context = _context(served_home)
    assert not runs_inline(specs["search_documents"], context)
    assert not runs_inline(specs["get_passage"], context)
    context.ensure_coherent()
    _ = context.engine.parts.reader
    assert runs_inline(specs["get_passage"], context)  # cheap: the reader is enough
    assert not runs_inline(specs["search_documents"], context)  # the model is not loaded yet
    _ = context.engine.parts.embedder, context.engine.parts.vectors
    assert not runs_inline(specs["search_documents"], context)  # a hybrid search also needs BM25
    _ = context.engine.parts.bm25
    assert runs_inline(specs["search_documents"], context)
    for name in ("verify_citation", "verify_citations", "timeline"):
        assert not runs_inline(specs[name], context), name


def test_a_large_state_searches_in_a_thread_even_when_warm(served_home, monkeypatch):
    import corpus.indexes.passage_store

    search = tool_specs()["search_documents"]
    context = _context(served_home)
    context.ensure_coherent()
    _ = (
        context.engine.parts.reader,
        context.engine.parts.embedder,
        context.engine.parts.vectors,
        context.engine.parts.bm25,
    )
    monkeypatch.setattr(corpus.indexes.passage_store, "LARGE_STATE_PASSAGES", len(context.engine.parts.reader.passages))
    assert not runs_inline(search, context)  # a search over a large state may take 100s of ms
    assert runs_inline(tool_specs()["get_passage"], context)


def test_a_warm_search_still_runs_in_a_thread_when_it_reranks(served_home, tmp_path):
    model = tmp_path / "cross-encoder"
    model.mkdir()
    context = _context(served_home, reranker_model_path=str(model))
    context.ensure_coherent()
    _ = (
        context.engine.parts.reader,
        context.engine.parts.embedder,
        context.engine.parts.vectors,
        context.engine.parts.bm25,
    )
    assert not runs_inline(tool_specs()["search_documents"], context)


def test_cheap_is_what_puts_a_tool_on_the_event_loop(served_home):
    context = _context(served_home)
    context.ensure_coherent()
    _ = context.engine.parts.reader
    timeline = tool_specs()["timeline"]
    assert not runs_inline(timeline, context)
    assert runs_inline(dataclasses.replace(timeline, cheap=True), context)


def test_the_warm_up_opens_every_part_a_search_needs(served_home):
    context = _context(served_home)
    context.ensure_coherent()
    context.engine.parts.warm_up()
    assert context.search_ready
    assert runs_inline(tool_specs()["search_documents"], context)


def test_the_warm_ups_extras_wait_for_the_first_answer(served_home, monkeypatch):
    """The caller's graph and the dense prescore open after the first call is answered (a cold
    start's first search never shares the cores with them); what a search needs, before it."""
    import threading
    import time

    from serving.mcp import server

    monkeypatch.setattr(server, "EXTRAS_AFTER_S", 120.0)
    context = _context(served_home)
    engine = context.engine
    warm = threading.Thread(target=server._warm_up, args=(context,), daemon=True)
    warm.start()
    deadline = time.monotonic() + 120
    while not (context.search_ready and engine.parts.is_open("tokens")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert context.search_ready and engine.parts.is_open("tokens")
    time.sleep(0.5)
    assert not engine.parts.is_open("callers") and not engine.parts.is_open("prefilter")
    context.answered.set()
    warm.join(timeout=120)
    while not engine.parts.is_open("prefilter") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert engine.parts.is_open("callers") and engine.parts.is_open("prefilter")
