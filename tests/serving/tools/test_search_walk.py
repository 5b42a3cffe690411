"""A search's question walks down the rooms and back without re-entering a module: from the
search_documents handler through the search use case, the filters, the engine and its helpers to
the stores, no project module is called into while one of its frames is still on the stack (the
helpers take the parts and never call back into the engine). Traced with sys.setprofile
(benchmarks/search_walk.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import serving.retrieval.engine
from serving.retrieval.rescan import rescan
from serving.retrieval.selection import Candidate
from serving.tools import search_documents as tool

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


@pytest.fixture()
def walker():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import search_walk

        yield search_walk
    finally:
        sys.path.remove(str(BENCHMARKS))


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": "value at risk from historical returns"},
        {"query": "value at risk in papers published after 1990", "mode": "dense"},
        {
            "query": "value at risk",
            "alternatives": ["expected shortfall estimation"],
            "hypothetical_passage": "Value at risk is a quantile of the loss distribution.",
        },
    ],
)
def test_a_search_enters_no_module_twice_on_its_way_down(context, walker, arguments):
    args = tool.SearchDocumentsInput.model_validate(arguments)
    tool.handle(context, args)  # every lazily opened part is open after a first search
    out, entries, reentries = walker.walk(tool.handle, context, args)
    assert out.results and reentries == []
    order = walker.rooms(entries)
    assert order.index("serving.toolkit") < order.index("serving.retrieval") < order.index("serving.abstention")
    assert "serving.answer" in order


def test_the_second_stage_and_the_document_rule_enter_no_module_twice(served_home, walker):
    """rescan ranks a leading document's passages over the parts, not through the engine."""
    from corpus.config import ServedConfig
    from corpus.state.layout import StateLayout
    from serving.mcp.server import ServingContext

    config = ServedConfig(rescan_documents=2, rescan_per_document=2, document_best_weight=0.5)
    context = ServingContext(StateLayout(served_home), config)
    args = tool.SearchDocumentsInput(query="value at risk", alternatives=["expected shortfall"])
    tool.handle(context, args)
    out, entries, reentries = walker.walk(tool.handle, context, args)
    assert out.results and reentries == []
    assert ("serving.retrieval.engine", "serving.retrieval.rescan") in entries


def test_the_walk_sees_a_helper_calling_back_into_the_engine(walker):
    """What the engine did before its split: a helper (rescan) calling a function of the engine."""
    engine_file = serving.retrieval.engine.__file__

    def rank_document(document_id: str) -> list[str]:
        return []

    def retrieve() -> list[Candidate]:
        passages = {"c1": SimpleNamespace(document_id="d1")}
        return rescan([Candidate("c1", 1.0)], passages, rank_document, 1, 1)

    for function in (rank_document, retrieve):
        function.__code__ = function.__code__.replace(co_filename=engine_file)
    _, _, reentries = walker.walk(retrieve)
    assert reentries == [["serving.retrieval.engine", "serving.retrieval.rescan", "serving.retrieval.engine"]]
