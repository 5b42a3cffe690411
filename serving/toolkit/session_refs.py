"""A `{"session": name}` argument and what reads it: the stored scope search_documents and
timeline filter by, the evidence verify_citations checks, the entry session_get shows. Lookup
failures are the tools' errors (not_found, or invalid_argument for an entry of another kind)."""

from __future__ import annotations

from typing import cast

from pydantic import Field

from serving.answer.errors import InvalidArgument, NotFound
from serving.sessions.kinds import Evidence, StoredScope
from serving.sessions.store import NAME_RE, SessionEntry, SessionError
from serving.toolkit.tool_spec import ToolInput


class SessionRef(ToolInput):
    session: str = Field(
        pattern=NAME_RE.pattern, description="An entry stored by session_put."
    )  # the pattern bounds it to 1-64


def session_entry(ctx, name: str, kind: str | None = None, field: str = "name") -> SessionEntry:
    """The entry `name` of `kind` (any kind when None); `field` is the argument blamed on failure."""
    try:
        entry = ctx.sessions.get(name)
    except SessionError as exc:  # absent (the name was checked by the schema)
        raise NotFound(
            f"no session entry named {name!r}; see session_list",
            fields=[field],
            next_call="call session_list for the stored session names",
        ) from exc
    if kind is not None and entry.kind != kind:
        raise InvalidArgument(
            f"session entry {name!r} is a {entry.kind!r}, not a {kind!r}",
            fields=[field],
            next_call=f"call session_list for the {kind} entries",
        )
    return entry


def scope_from_session(ctx, name: str) -> tuple[StoredScope, str]:
    """The stored scope `name` and its provenance (a `scope` argument)."""
    entry = session_entry(ctx, name, "scope", field="scope")
    return cast(StoredScope, entry.value), entry.provenance  # the kind was checked


def evidence_from_session(ctx, name: str) -> tuple[list[dict], str]:
    """The quotes of the evidence entry `name`, as verify_citations items, and its provenance."""
    entry = session_entry(ctx, name, "evidence", field="evidence")
    return [item.model_dump() for item in cast(Evidence, entry.value).items], entry.provenance
