"""The tool set, in the order tools/list shows them: the one module outside serving.tools that
imports a tool (the server and the CLI take the set from here; tests/serving/test_layers.py)."""

from __future__ import annotations

from serving.toolkit.tool_spec import ToolSpec
from serving.tools import (
    corpus_status,
    get_passage,
    graph,
    list_documents,
    search_documents,
    sessions,
    timeline,
    verify_citation,
    verify_citations,
)


def all_tools() -> list[ToolSpec]:
    """Every tool spec, in the order tools/list shows them."""
    return [
        search_documents.SPEC,
        get_passage.SPEC,
        list_documents.SPEC,
        timeline.SPEC,
        verify_citation.SPEC,
        verify_citations.SPEC,
        corpus_status.SPEC,
        *graph.SPECS,
        *sessions.SPECS,
    ]
