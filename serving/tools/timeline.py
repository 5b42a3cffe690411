"""timeline: how the library treats a topic over time — best passage per document, by year."""

from __future__ import annotations

from pydantic import BaseModel, Field

from serving.answer.contract import TIMELINE_PREVIEW, render_trace, timeline_preview
from serving.answer.outputs import Cite, PeriodOut, Trace
from serving.answer.served import cite_of
from serving.toolkit.context import ToolContext
from serving.toolkit.empty_scope import EmptyScope, diagnose
from serving.toolkit.empty_scope import render as render_empty_scope
from serving.toolkit.filters import FILTER_ERRORS, Filters, resolve_filters
from serving.toolkit.known_ids import require_known_documents
from serving.toolkit.tool_spec import ToolSpec
from serving.tools.search_documents import MAX_QUERY_CHARS, ModeName, render_header

MAX_DOCUMENTS = 50
POOL_PER_DOCUMENT = 3  # candidates fetched per wanted document, so rarer documents still surface


class TimelineInput(Filters):
    query: str = Field(
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        description="The topic to trace, in English.",
    )
    limit: int = Field(20, ge=1, le=MAX_DOCUMENTS, description="Documents, one passage each.")
    mode: ModeName | None = Field(None, description="As in search_documents; omit for the default.")


class TimelineEntry(BaseModel):
    chunk_id: str
    document_id: str
    score: float
    cite: Cite
    section: list[str]
    preview: str = Field(description="Start of the passage; read it whole with get_passage.")


class YearGroup(BaseModel):
    year: int | None = Field(description="Publication year; null for undated documents (last).")
    entries: list[TimelineEntry]


class TimelineOutput(BaseModel):
    years: list[YearGroup]
    period: PeriodOut
    mode: ModeName
    documents_in_scope: int | None
    empty_scope: EmptyScope | None = Field(
        None, description=("Set when the filters match no document: which filter failed, why, and the nearest values.")
    )
    trace: Trace


def handle(ctx: ToolContext, args: TimelineInput) -> TimelineOutput:
    require_known_documents(ctx, args)
    engine = ctx.engine
    scope, period, text, _ = resolve_filters(ctx, args, args.query)
    mode = args.mode or ctx.config.default_mode
    found = engine.retrieve(
        text,
        mode,
        scope,
        limit=args.limit,
        per_document=1,
        pool=max(ctx.config.candidate_pool, POOL_PER_DOCUMENT * args.limit),
    )
    reader = engine.parts.reader
    groups: dict[int | None, list[TimelineEntry]] = {}
    seen: set[str] = set()
    for hit in found.hits:
        p = reader.passages[hit.chunk_id]
        # the selection's fill step may add a document's second passage: one entry per document
        if p.document_id in seen:
            continue
        seen.add(p.document_id)
        year = reader.documents[p.document_id].year
        groups.setdefault(year, []).append(
            TimelineEntry(
                chunk_id=p.chunk_id,
                document_id=p.document_id,
                score=hit.score,
                cite=cite_of(reader, p.document_id, p.page_start, p.page_end),
                section=list(p.section),
                preview=timeline_preview(p.text),
            )
        )
    order = sorted(groups, key=lambda y: (y is None, y or 0))
    empty = diagnose(ctx.engine, scope, "timeline") if found.documents_in_scope == 0 else None
    return TimelineOutput(
        years=[YearGroup(year=y, entries=groups[y]) for y in order],
        period=period,
        mode=mode,
        documents_in_scope=found.documents_in_scope,
        empty_scope=empty,
        trace=ctx.trace("timeline_preview"),
    )


def render(out: TimelineOutput) -> str:
    count = sum(len(g.entries) for g in out.years)
    lines = [render_header(out.mode, out.period, out.documents_in_scope, count)]
    if out.empty_scope is not None:
        lines.append(render_empty_scope(out.empty_scope))
    for group in out.years:
        lines.append(f"\n== {group.year if group.year is not None else 'undated'}")
        for e in group.entries:
            lines.append(
                f"- cite: {e.cite.text}\n  keys (do not cite): chunk_id={e.chunk_id} "
                f"document_id={e.document_id}\n  {e.preview}"
            )
    lines.append("\n" + render_trace(out.trace))
    return "\n".join(lines)


def describe(ctx: ToolContext) -> str:
    return (
        "A topic through time: each document's best passage on it, oldest first, as a "
        f"{TIMELINE_PREVIEW}-character preview with cite line and chunk_id. Use it for 'how did X "
        "evolve' or 'who wrote on X first'. Filters as in search_documents; "
        f"mode={ctx.config.default_mode} unless `mode` says otherwise."
    )


SPEC = ToolSpec(
    name="timeline",
    title="Topic timeline",
    description=describe,
    input_model=TimelineInput,
    output_model=TimelineOutput,
    handler=handle,
    render=render,
    window="timeline_preview",
    errors=FILTER_ERRORS,
)
