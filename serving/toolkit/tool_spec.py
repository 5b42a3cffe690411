"""What a tool is: a `ToolSpec`, made of a closed input model, an output model (the output
schema), a handler taking the shared `ToolContext` (serving.toolkit.context) and the validated input, and
a text rendering of the output. The tools are the modules of serving.tools; serving.mcp.toolset
lists them.

A description is text, or a function of the context when it quotes a configured value (default
mode, per-document cap, session limits): the number an agent reads is then the one the server
runs with, rendered from its one home. Each description ends with the tool's "Errors:" line,
built from `errors` (the error model itself, and incoherent_state, which every tool but
corpus_status answers alike, are stated once, in the server's instructions).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_args

from pydantic import BaseModel, ConfigDict

from serving.answer.errors import ErrorCode
from serving.toolkit.context import ToolContext


class ToolInput(BaseModel):
    """Base of every tool input: unknown arguments are an error (a closed schema), and types are
    strict (`true` or "5" is not an integer)."""

    model_config = ConfigDict(extra="forbid", strict=True)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str | Callable[[ToolContext], str]
    input_model: type[ToolInput]
    output_model: type[BaseModel]
    handler: Callable[[ToolContext, Any], BaseModel]  # (context, validated input) -> output
    render: Callable[[Any], str]  # output -> readable text
    window: str | None = None  # key of serving.answer.contract.WINDOWS, if it serves text
    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
    # (code, when) for the failures this tool itself can answer; invalid_argument (any argument
    # outside the schema) is added by `error_line`, incoherent_state left to the instructions.
    errors: tuple[tuple[ErrorCode, str], ...] = ()
    needs_coherent_state: bool = True  # False: answers on an incoherent state (corpus_status)
    # True: answers from memory in about a millisecond once the corpus reader is open, so the
    # server runs it on its event loop: a worker thread's hand-over would cost more than the call.
    cheap: bool = False
    # output -> (bytes, MIME type) of the images sent as MCP image content after the text, if any
    images: Callable[[Any], list[tuple[bytes, str]]] | None = None

    def __post_init__(self) -> None:
        unknown = {code for code, _ in self.errors} - set(get_args(ErrorCode))
        if unknown:
            raise ValueError(f"{self.name}: unknown error code(s) {sorted(unknown)}")

    def describe(self, ctx: ToolContext) -> str:
        """The description tools/list publishes: the text, then the "Errors:" line."""
        text = self.description(ctx) if callable(self.description) else self.description
        return f"{text} Errors: {self.error_line()}."

    def error_line(self) -> str:
        """This tool's own causes, and invalid_argument (bare when it has none of its own: an
        argument outside the schema). incoherent_state, which every tool but corpus_status answers
        alike, is left to the server's instructions, which state the error model once."""
        causes = dict(self.errors)
        causes.setdefault("invalid_argument", "")
        return "; ".join(f"{code} ({when})" if when else code for code, when in causes.items())

    def content(self, output: BaseModel) -> list:
        """The MCP content of a result: its text rendering, then its images (base64, as MCP wants)."""
        import base64

        from mcp_types import ImageContent, TextContent

        content: list = [TextContent(type="text", text=self.render(output))]
        for data, mime in self.images(output) if self.images else ():
            content.append(ImageContent(type="image", data=base64.b64encode(data).decode("ascii"), mime_type=mime))
        return content

    @property
    def error_codes(self) -> list[str]:
        return [code for code, _ in self.errors]
