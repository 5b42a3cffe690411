"""The session tools (docs/DESIGN.md §7); the store is serving.sessions, the kinds serving.session_kinds."""

from __future__ import annotations

from typing import get_args

from pydantic import BaseModel, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from serving.citation import MAX_QUOTE_CHARS, MIN_QUOTE_CHARS
from serving.contract import render_trace
from serving.contract_outputs import Trace
from serving.errors import InvalidArgument, NotFound
from serving.session_kinds import MAX_LIST_LENGTH, VALID_CALLS, Evidence, Kind, StoredScope
from serving.session_refs import session_entry
from serving.sessions import (
    MAX_ITEMS_ENV,
    MAX_TOTAL_BYTES,
    MAX_VALUE_BYTES,
    NAME_RE,
    PROVENANCE_HELP,
    SessionEntry,
    SessionError,
    SessionProvenance,
    SessionSummary,
)
from serving.tool_spec import ToolInput, ToolSpec

_NAME = Field(pattern=NAME_RE.pattern, min_length=1, max_length=64, description="Entry name: 1-64 of A-Z a-z 0-9 _ . -")


def _item_message(error: dict, kind: str, last: bool) -> str:
    loc = error["loc"]
    which = f"{kind} item {loc[1]}: " if len(loc) > 1 and loc[0] == "items" else ""
    message = "unknown field" if error["type"] == "extra_forbidden" else error["msg"]
    return which + message + (f"; a valid call: {VALID_CALLS[kind]}" if last else "")


def _require_served(ctx, value: Evidence) -> None:
    """Evidence ids must name served documents and passages, as verify_citations requires: an
    entry that verification would refuse is refused when stored."""
    reader = ctx.engine.reader
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
    kind: Kind = Field(
        description=("scope: filters for search_documents and timeline; evidence: quotes for verify_citations.")
    )
    value: StoredScope | Evidence = Field(
        description=(
            "scope: {year_min?, year_max?, authors?, document_ids?} (at least one); evidence: {items: "
            "[{document_id, quote, chunk_id?, supports?}]}, each held to verify_citations' rules (a "
            f"quote of {MIN_QUOTE_CHARS} to {MAX_QUOTE_CHARS:,} characters, served ids). At most "
            f"{MAX_LIST_LENGTH} ids, authors or items, and {MAX_VALUE_BYTES:,} bytes as compact JSON."
        )
    )
    provenance: SessionProvenance = Field(
        description=(
            f"Where the content came from: {PROVENANCE_HELP}. Recalled or invented content has no "
            "provenance and must not be stored."
        )
    )

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
    """No arguments."""


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
    total = f" and {MAX_TOTAL_BYTES:,} bytes in all" if full else ""
    return (
        f"Entries live in this server process only: at most {ctx.sessions.max_items} "
        f"({MAX_ITEMS_ENV}){total}, least recently used dropped beyond. Cheap: in memory."
    )


SPECS = [
    ToolSpec(
        name="session_put",
        title="Store a session entry",
        description=lambda ctx: (
            'Store a named entry to pass later as {"session": name}: a `scope` (year range, '
            "authors, document ids) as search_documents' or timeline's `scope`, or an "
            "`evidence` list (quotes with their document_id, and the claim each supports) as "
            "verify_citations' `evidence`, held to its rules when stored (the error names the "
            "item and shows a valid call). "
            "Use it to reuse filters across searches or to verify an answer's quotes in one "
            "call. Replaces an entry of the same name. State where the content came from "
            "(`provenance`); never store recalled or invented content. One value holds at "
            f"most {MAX_LIST_LENGTH} items and {MAX_VALUE_BYTES:,} bytes; entries dropped to "
            "make room are named in `evicted`. " + _limits(ctx, full=True)
        ),
        input_model=SessionPutInput,
        output_model=SessionPutOutput,
        handler=put,
        render=render_put,
        read_only=False,
        destructive=True,
        idempotent=True,
        errors=(
            (
                "invalid_argument",
                "a value not of its kind's shape, over a limit, or an evidence quote verify_citations would refuse",
            ),
            ("not_found", "an evidence item whose document_id or chunk_id is not served"),
        ),
    ),
    ToolSpec(
        name="session_get",
        title="Read a session entry",
        description=lambda ctx: (
            "Read one stored entry whole: kind, value, provenance, size and creation time "
            "(reading marks it recently used). Use it to recall what a scope or evidence "
            'list holds; to use one in a call, pass {"session": name} there instead. To find '
            "names, use session_list. " + _limits(ctx)
        ),
        input_model=SessionNameInput,
        output_model=SessionGetOutput,
        handler=get,
        render=render_get,
        cheap=True,
        errors=(("not_found", "no entry of that name"),),
    ),
    ToolSpec(
        name="session_list",
        title="List session entries",
        description=lambda ctx: (
            "List the stored entries, most recently used first: name, kind, provenance, size "
            "and bytes, never values (session_get reads one), with the store's limits and "
            "current total. Use it to find a name to reuse, read or delete. Listing does not "
            "change the order. " + _limits(ctx, full=True)
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
            "Delete one stored entry by name; `deleted` is false when there was none (not an "
            "error). Use it to drop an entry no longer wanted; replacing one needs no delete "
            "(session_put overwrites). " + _limits(ctx)
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
