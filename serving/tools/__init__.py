"""The fourteen MCP tools: one module each (graph and session tools share a module by family).

A tool is a `ToolSpec`: closed input model, output model (the output schema), a handler taking
the shared `ToolContext` and the validated input, and a text rendering of the output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict


class ToolInput(BaseModel):
    """Base of every tool input: unknown arguments are an error (a closed schema), and types are
    strict (`true` or "5" is not an integer)."""

    model_config = ConfigDict(extra="forbid", strict=True)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_model: type[ToolInput]
    output_model: type[BaseModel]
    handler: Callable[[Any, Any], BaseModel]   # (ToolContext, validated input) -> output
    render: Callable[[Any], str]               # output -> readable text
    window: str | None = None                  # key of serving.contract.WINDOWS, if it serves text
    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True


def all_tools() -> list[ToolSpec]:
    """Every tool spec, in the order tools/list shows them."""
    from serving.tools import (corpus_status, get_passage, graph, list_documents,
                               search_documents, sessions, timeline, verify_citation)

    return [search_documents.SPEC, get_passage.SPEC, list_documents.SPEC, timeline.SPEC,
            *verify_citation.SPECS, corpus_status.SPEC, *graph.SPECS, *sessions.SPECS]
