"""The session tools (docs/DESIGN.md §7); the store is serving.sessions.store, the kinds serving.sessions.kinds."""

from __future__ import annotations

from typing import get_args

from pydantic import BaseModel, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from serving.answer.contract import render_trace
from serving.answer.errors import InvalidArgument, NotFound
from serving.answer.outputs import Trace
from serving.sessions.kinds import MAX_LIST_LENGTH, VALID_CALLS, Evidence, Kind, StoredScope
from serving.sessions.store import (
    MAX_ITEMS_ENV,
    MAX_TOTAL_BYTES,
    MAX_VALUE_BYTES,
    NAME_RE,
    SessionEntry,
    SessionError,
    SessionProvenance,
    SessionSummary,
)
from serving.toolkit.session_refs import session_entry
from serving.toolkit.tool_spec import ToolInput, ToolSpec

PROVENANCE = "Where it came from; served: this server's output."
_NAME = Field(pattern=NAME_RE.pattern, description="Entry name (see session_list).")  # the pattern bounds it to 1-64


def _item_message(error: dict, kind: str, last: bool) -> str:
    loc = error["loc"]
    which = f"{kind} item {loc[1]}: " if len(loc) > 1 and loc[0] == "items" else ""
    message = "unknown field" if error["type"] == "extra_forbidden" else error["msg"]
    return which + message + (f"; a valid call: {VALID_CALLS[kind]}" if last else "")


def _require_served(ctx, value: Evidence) -> None:
    """Evidence ids must name served documents and passages, as verify_citations requires: an
    entry that verification would refuse is refused when stored."""
    reader = ctx.engine.parts.reader
    fields, problems = [], []
    for i, item in enumerate(value.items):
        if item.document_id not in reader.documents:
            fields.append(f"value.items.{i}.document_id")
            problems.append(f"evidence item {i}: unknown document_id {item.document_id}")
        if item.chunk_id is not None and item.chunk_id not in reader.passages:
            fields.append(f"value.items.{i}.chunk_id")
            problems.append(f"evidence item {i}: unknown chunk_id {item.chunk_id}")
    if fields:
        more = f" and {len(problems) - 5} more" if len(problems) > 5 else ""
        raise NotFound(
            "; ".join(problems[:5]) + more + ": not in the served corpus, nothing stored "
            "(list_documents gives document_ids, search_documents chunk_ids); a valid "
            f"call: {VALID_CALLS['evidence']}",
            fields=fields,
        )


class SessionPutInput(ToolInput):
    name: str = _NAME
    kind: Kind = Field(description="What `value` holds.")
    value: StoredScope | Evidence = Field(
        description="Per `kind`: filters as search_documents takes them, or quotes as verify_citations does."
    )
    provenance: SessionProvenance = Field(description=PROVENANCE)

    @field_validator("value", mode="wrap")
    @classmethod
    def _by_kind(cls, value, handler, info):
        """Validate against the model `kind` names, so an error names that kind's fields only
        (which item, which field) and ends with a valid call."""
        kind = info.data.get("kind")
        model = {"scope": StoredScope, "evidence": Evidence}.get(kind)
        if model is None or isinstance(value, model):
            return handler(value)
        try:
            return model.model_validate(value)
        except ValidationError as exc:
            errors = exc.errors(include_input=False)
            lines = [
                {
                    "type": PydanticCustomError("invalid_value", _item_message(e, kind, i == len(errors) - 1)),
                    "loc": e["loc"],
                    "input": None,
                }
                for i, e in enumerate(errors)
            ]
            raise ValidationError.from_exception_data(exc.title, lines) from None


class SessionPutOutput(BaseModel):
    entry: SessionSummary = Field(description="The entry stored, without its value.")
    evicted: list[str] = Field(description="Least recently used entries dropped to make room.")
    trace: Trace


class SessionNameInput(ToolInput):
    name: str = _NAME


class SessionGetOutput(BaseModel):
    entry: SessionEntry
    trace: Trace


class SessionListInput(ToolInput):
    pass  # no arguments (a docstring would be published as the schema's description)


class SessionListOutput(BaseModel):
    entries: list[SessionSummary] = Field(
        description="Most recently used first; no values (read one with session_get)."
    )
    max_items: int
    total_bytes: int
    max_total_bytes: int
    trace: Trace


class SessionDeleteOutput(BaseModel):
    name: str
    deleted: bool = Field(description="False when there was no such entry.")
    trace: Trace


_KIND_OF = {StoredScope: "scope", Evidence: "evidence"}
assert set(_KIND_OF.values()) == set(get_args(Kind))


def put(ctx, args: SessionPutInput) -> SessionPutOutput:
    if _KIND_OF[type(args.value)] != args.kind:
        raise InvalidArgument(
            f"value has the shape of a {_KIND_OF[type(args.value)]!r} entry, kind says {args.kind!r}",
            fields=["kind", "value"],
        )
    if isinstance(args.value, Evidence):
        _require_served(ctx, args.value)
    try:
        entry, evicted = ctx.sessions.store(args.name, args.kind, args.value, args.provenance)
    except SessionError as exc:
        raise InvalidArgument(str(exc), fields=["value"]) from exc
    return SessionPutOutput(entry=SessionSummary.of(entry), evicted=evicted, trace=ctx.trace(None))


def get(ctx, args: SessionNameInput) -> SessionGetOutput:
    return SessionGetOutput(entry=session_entry(ctx, args.name), trace=ctx.trace(None))


def list_entries(ctx, args: SessionListInput) -> SessionListOutput:
    return SessionListOutput(
        entries=ctx.sessions.summaries(),
        max_items=ctx.sessions.max_items,
        total_bytes=ctx.sessions.total_bytes,
        max_total_bytes=MAX_TOTAL_BYTES,
        trace=ctx.trace(None),
    )


def delete(ctx, args: SessionNameInput) -> SessionDeleteOutput:
    return SessionDeleteOutput(name=args.name, deleted=ctx.sessions.delete(args.name), trace=ctx.trace(None))


def _line(e: SessionEntry | SessionSummary) -> str:
    return f"- {e.name}: {e.kind} ({e.size} item(s), {e.bytes} bytes, provenance {e.provenance}, {e.created_at})"


def render_put(out: SessionPutOutput) -> str:
    evicted = f"\nevicted: {', '.join(out.evicted)}" if out.evicted else ""
    return f"stored\n{_line(out.entry)}{evicted}\n{render_trace(out.trace)}"


def render_get(out: SessionGetOutput) -> str:
    return f"{_line(out.entry)}\n{out.entry.value.model_dump_json(indent=1)}\n{render_trace(out.trace)}"


def render_list(out: SessionListOutput) -> str:
    lines = [
        f"{len(out.entries)} entr(ies) of at most {out.max_items}, {out.total_bytes} of at "
        f"most {out.max_total_bytes} bytes"
    ] + [_line(e) for e in out.entries]
    return "\n".join(lines + [render_trace(out.trace)])


def render_delete(out: SessionDeleteOutput) -> str:
    done = "deleted" if out.deleted else "no such entry"
    return f"{out.name}: {done}\n{render_trace(out.trace)}"


def _limits(ctx, full: bool = False) -> str:
    """The store's limits as the server runs with them (max items from the environment)."""
    total = f", {MAX_TOTAL_BYTES:,} bytes" if full else ""
    return f"In memory: at most {ctx.sessions.max_items} ({MAX_ITEMS_ENV}) entries{total}, least used dropped."


SPECS = [
    ToolSpec(
        name="session_put",
        title="Store a session entry",
        description=lambda ctx: (
            'Store a named `scope` (filters) or `evidence` (quotes) to pass later as {"session": '
            "name}. Use it to reuse filters or check an answer's quotes in one call. Never store "
            f"invented content. A value: at most {MAX_LIST_LENGTH} items, {MAX_VALUE_BYTES:,} bytes. "
            + _limits(ctx, full=True)
        ),
        input_model=SessionPutInput,
        output_model=SessionPutOutput,
        handler=put,
        render=render_put,
        read_only=False,
        destructive=True,
        idempotent=True,
        errors=(
            ("invalid_argument", "value not of its kind, or over a limit"),
            ("not_found", "evidence id not served"),
        ),
    ),
    ToolSpec(
        name="session_get",
        title="Read a session entry",
        description=lambda ctx: (
            "Read one stored entry whole: kind, value, provenance, size, creation time. Use it to "
            'recall what an entry holds; to use one, pass {"session": name} in that call.'
        ),
        input_model=SessionNameInput,
        output_model=SessionGetOutput,
        handler=get,
        render=render_get,
        cheap=True,
        errors=(("not_found", "no such entry"),),
    ),
    ToolSpec(
        name="session_list",
        title="List session entries",
        description=lambda ctx: (
            "The stored entries, most recently used first: name, kind, provenance, size (no "
            "values). Use it to find a name to reuse, read or delete. " + _limits(ctx, full=True)
        ),
        input_model=SessionListInput,
        output_model=SessionListOutput,
        handler=list_entries,
        render=render_list,
        cheap=True,
    ),
    ToolSpec(
        name="session_delete",
        title="Delete a session entry",
        description=lambda ctx: (
            "Delete one stored entry by name; `deleted` is false if there was none. Use it to drop "
            "an entry you no longer need; session_put replaces without it."
        ),
        input_model=SessionNameInput,
        output_model=SessionDeleteOutput,
        handler=delete,
        render=render_delete,
        cheap=True,
        read_only=False,
        destructive=True,
        idempotent=True,
    ),
]
