"""The fourteen MCP tools: one module each (graph and session tools share a module by family).

A tool is a `ToolSpec`: closed input model, output model (the output schema), a handler taking
the shared `ToolContext` (serving.context) and the validated input, and a text rendering of the
output. The tool set itself is listed in serving.toolset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict

from serving.context import ToolContext


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
    handler: Callable[[ToolContext, Any], BaseModel]   # (context, validated input) -> output
    render: Callable[[Any], str]               # output -> readable text
    window: str | None = None                  # key of serving.contract.WINDOWS, if it serves text
    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
