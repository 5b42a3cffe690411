"""Tool errors an agent can act on: a code, a message, and what to do next.

Every failure a tool meets (bad argument, unknown id, incoherent state, a store that will not open)
becomes a `ServingError`; the server turns it into an `is_error` result with structured content
instead of a traceback.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from corpus.state import HOME_ENV

ErrorCode = Literal["invalid_argument", "not_found", "incoherent_state", "unavailable", "internal"]


class ErrorDetail(BaseModel):
    """The structured body of a tool error."""

    model_config = ConfigDict(extra="forbid")
    code: ErrorCode
    message: str
    fields: list[str] = Field(default_factory=list, description="Arguments at fault, if any.")
    rebuild: list[str] = Field(default_factory=list, description="Commands that repair the state.")


class ServingError(Exception):
    """A failure reported to the caller as a structured tool error."""

    code: ErrorCode = "internal"

    def __init__(self, message: str, *, fields: list[str] | None = None,
                 rebuild: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields or []
        self.rebuild = rebuild or []

    def detail(self) -> ErrorDetail:
        return ErrorDetail(code=self.code, message=self.message, fields=self.fields,
                           rebuild=self.rebuild)


class InvalidArgument(ServingError):
    code: ErrorCode = "invalid_argument"


class NotFound(ServingError):
    code: ErrorCode = "not_found"


class IncoherentState(ServingError):
    code: ErrorCode = "incoherent_state"


class Unavailable(ServingError):
    code: ErrorCode = "unavailable"


STATE_VARIABLE = f"${HOME_ENV}"


def without_state_paths(text: str, root: Path) -> str:
    """An error names the artefact relative to the state directory's variable, never the host's
    absolute path (`$QUANT_RAG_HOME/vectors/...`): the client needs the artefact, not the disk."""
    for form in sorted({str(root), str(Path(root).resolve())}, key=len, reverse=True):
        if form != "/":
            text = re.sub(re.escape(form) + r"(?![^/\s'\"),;:\]])", STATE_VARIABLE, text)
    return text


def describe_validation_error(exc: Exception) -> InvalidArgument:
    """Turn a pydantic ValidationError into an InvalidArgument naming each field and problem.

    The rejected values are the caller's own data and may be huge (a 100 kB query), so only
    field names and pydantic's short messages are kept.
    """
    errors = exc.errors(include_input=False) if hasattr(exc, "errors") else []
    fields: list[str] = []
    problems: list[str] = []
    for error in errors:
        location = ".".join(str(part) for part in error.get("loc", ())) or "(arguments)"
        fields.append(location)
        if error.get("type") == "extra_forbidden":
            problems.append(f"{location}: unknown argument")
        else:
            problems.append(f"{location}: {error.get('msg', 'invalid value')}")
    message = "invalid arguments: " + "; ".join(problems) if problems else f"invalid arguments: {exc}"
    return InvalidArgument(message, fields=sorted(set(fields)))
