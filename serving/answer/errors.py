"""Tool errors an agent can act on: a code, a message, the arguments at fault and the call to
make next.

Every failure a tool meets (bad argument, unknown id, incoherent state, a store that will not open)
becomes a `ServingError`; the server turns it into an `is_error` result instead of a traceback:
a readable text block, then the error as JSON in a second text block, and no structured content
(a strict client, such as the TypeScript SDK's, validates any structured content against the
tool's output schema, which describes the success).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from corpus.state.layout import HOME_ENV
from serving.answer.error_hints import argument_hint, input_schema, matching_members, next_call

ErrorCode = Literal["invalid_argument", "not_found", "incoherent_state", "unavailable", "internal"]


class ErrorDetail(BaseModel):
    """The structured body of a tool error."""

    model_config = ConfigDict(extra="forbid")
    code: ErrorCode
    message: str
    fields: list[str] = Field(default_factory=list, description="Arguments at fault, if any.")
    next_call: str = Field(
        "",
        description="The call to make next: the tool, and what a valid "
        "argument looks like or where a valid id comes from.",
    )
    rebuild: list[str] = Field(default_factory=list, description="Commands that repair the state.")


class ServingError(Exception):
    """A failure reported to the caller as a structured tool error."""

    code: ErrorCode = "internal"

    def __init__(
        self, message: str, *, fields: list[str] | None = None, rebuild: list[str] | None = None, next_call: str = ""
    ) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields or []
        self.rebuild = rebuild or []
        self.next_call = next_call  # empty: the server derives one from the code and fields

    def detail(self) -> ErrorDetail:
        return ErrorDetail(
            code=self.code, message=self.message, fields=self.fields, next_call=self.next_call, rebuild=self.rebuild
        )


class InvalidArgument(ServingError):
    code: ErrorCode = "invalid_argument"


class NotFound(ServingError):
    code: ErrorCode = "not_found"


class IncoherentState(ServingError):
    code: ErrorCode = "incoherent_state"


class Unavailable(ServingError):
    code: ErrorCode = "unavailable"


def error_payload(result) -> dict:
    """{"error": ErrorDetail as JSON, "trace": ...} of an error result (its last text block)."""
    return json.loads(result.content[-1].text)


STATE_VARIABLE = f"${HOME_ENV}"


def without_state_paths(text: str, root: Path) -> str:
    """An error names the artefact relative to the state directory's variable, never the host's
    absolute path (`$QUANT_RAG_HOME/vectors/...`): the client needs the artefact, not the disk."""
    for form in sorted({str(root), str(Path(root).resolve())}, key=len, reverse=True):
        if form != "/":
            text = re.sub(re.escape(form) + r"(?![^/\s'\"),;:\]])", STATE_VARIABLE, text)
    return text


def describe_validation_error(
    exc: Exception, tool: str | None = None, model: type[BaseModel] | None = None, arguments: dict | None = None
) -> InvalidArgument:
    """Turn a pydantic ValidationError into an InvalidArgument naming each field and problem, and,
    given the tool, its input model and the arguments, the next valid call (serving.answer.error_hints).

    The rejected values are the caller's own data and may be huge (a pasted document as a query), so only
    field names and pydantic's short messages are kept (an id given where the other kind belongs
    is named: it has the short, fixed shape of an id).
    """
    errors = exc.errors(include_input=False) if hasattr(exc, "errors") else []
    if not errors:
        return InvalidArgument(f"invalid arguments: {exc}")
    schema = input_schema(model) if model is not None else {}
    fields, problems, clauses, sentences = [], [], [], []
    for error in matching_members(schema, errors):
        field, problem, clause, sentence = argument_hint(tool or "the tool", schema, error, arguments or {})
        fields += field.split(", ")
        problems.append(problem)
        clauses += [clause] if clause else []
        sentences.append(sentence)
    message = "invalid arguments: " + "; ".join(dict.fromkeys(problems))
    hint = next_call(tool, clauses, sentences) if tool else ""
    return InvalidArgument(message, fields=sorted(set(fields)), next_call=hint)
