"""search_documents: find passages for a question (the configured default mode), with bibliographic filters."""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator, model_validator

from corpus.ids import DOCUMENT_ID_RE
from serving.contract import SEARCH_WINDOW, Trace
from serving.engine import Mode as ModeName
from serving.engine import Scope
from serving.periods import apply_period
from serving.schemas import PassageOut, PeriodOut, passage_out, render_passage, render_trace
from serving.tools import ToolInput, ToolSpec
from serving.tools.sessions import SessionRef, scope_from_session

YEAR_MIN, YEAR_MAX = 1900, 2099
MAX_QUERY_CHARS = 2000
MAX_RESULTS = 20


class Filters(ToolInput):
    """Filters shared by search_documents and timeline."""

    year_min: int | None = Field(None, ge=YEAR_MIN, le=YEAR_MAX, description=(
        "Earliest publication year, inclusive. Any year bound excludes undated documents."))
    year_max: int | None = Field(None, ge=YEAR_MIN, le=YEAR_MAX, description=(
        "Latest publication year, inclusive. Any year bound excludes undated documents."))
    author: str | None = Field(None, min_length=1, max_length=200, description=(
        "Accent- and case-insensitive substring of any author's name."))
    document_id: str | None = Field(None, pattern=DOCUMENT_ID_RE.pattern, description=(
        "Restrict to one document (a document_id from list_documents or an earlier result)."))
    scope: SessionRef | None = Field(None, description=(
        'A stored `scope` session, e.g. {"session": "my-scope"}; explicit arguments win.'))
    auto_period: bool = Field(True, description=(
        "Read a period written in the query (\"papers before 2010\") as a year filter and "
        "remove it from the searched text. Explicit year bounds always win."))

    @field_validator("query", mode="after", check_fields=False)
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must contain text")
        return value

    @model_validator(mode="after")
    def _ordered_years(self):
        if self.year_min is not None and self.year_max is not None and self.year_min > self.year_max:
            raise ValueError("year_min must not exceed year_max")
        return self


class SearchDocumentsInput(Filters):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description=(
        "The research question or topic, in English natural language."))
    limit: int = Field(5, ge=1, le=MAX_RESULTS, description="Passages to return.")
    mode: ModeName | None = Field(None, description=(
        "Omit for the server's default (hybrid, chosen by measured comparisons). hybrid: dense and "
        "BM25 fused by reciprocal rank; dense: meaning only; bm25: exact words only (identifiers, numbers)."))


class SearchDocumentsOutput(BaseModel):
    results: list[PassageOut]
    period: PeriodOut
    mode: ModeName
    searched_text: str = Field(description="The text actually searched (period clause removed).")
    documents_in_scope: int | None = Field(description="Documents passing the filters; null = all.")
    candidates: int = Field(description="Candidates retrieved before selection.")
    reranked: bool
    scope_provenance: str | None = Field(description="Provenance of the scope session used.")
    trace: Trace


def resolve_filters(ctx, args: Filters, text: str) -> tuple[Scope, PeriodOut, str, str | None]:
    """Merge explicit arguments, a scope session and a period in `text`, in that precedence."""
    session = scope_from_session(ctx, args.scope.session) if args.scope else None
    year_min, year_max = args.year_min, args.year_max
    sources = {"min": "caller" if year_min is not None else None,
               "max": "caller" if year_max is not None else None}
    if session:
        if year_min is None and session.year_min is not None:
            year_min, sources["min"] = session.year_min, "session"
        if year_max is None and session.year_max is not None:
            year_max, sources["max"] = session.year_max, "session"
    clause = None
    if args.auto_period:
        applied = apply_period(text, year_min, year_max, ctx.engine.newest_year())
        text, clause = applied.query, applied.parsed.clause
        for side, value, source in (("min", applied.year_min, applied.source_min),
                                    ("max", applied.year_max, applied.source_max)):
            if source == "question":
                sources[side] = "question"
        year_min, year_max = applied.year_min, applied.year_max
    authors = (args.author,) if args.author else (tuple(session.authors) if session else ())
    ids = {args.document_id} if args.document_id else None
    if session and session.document_ids:
        ids = set(session.document_ids) & ids if ids else set(session.document_ids)
    scope = Scope(year_min, year_max, authors, frozenset(ids) if ids is not None else None)
    source_min = sources["min"] if year_min is not None else None
    source_max = sources["max"] if year_max is not None else None
    said = [f"{name}={value} ({source})" for name, value, source in
            (("year_min", year_min, source_min), ("year_max", year_max, source_max)) if value]
    note = ("period applied: " + ", ".join(said) + (f"; read from the query: “{clause}”"
                                                    if clause else "")) if said else None
    period = PeriodOut(year_min=year_min, year_max=year_max, clause=clause,
                       source_min=source_min, source_max=source_max, note=note)
    return scope, period, text, session.provenance if session else None


def handle(ctx, args: SearchDocumentsInput) -> SearchDocumentsOutput:
    scope, period, text, provenance = resolve_filters(ctx, args, args.query)
    mode = args.mode or ctx.config.default_mode
    found = ctx.engine.retrieve(text, mode, scope, limit=args.limit)
    return build_output(ctx, found, period, mode, text, provenance)


def build_output(ctx, found, period: PeriodOut, mode: str, text: str,
                 provenance: str | None) -> SearchDocumentsOutput:
    """The structured answer for a retrieval (hits served within the search window)."""
    reader = ctx.engine.reader
    results = [passage_out(reader, reader.passages[hit.chunk_id], SEARCH_WINDOW, score=hit.score)
               for hit in found.hits]
    return SearchDocumentsOutput(results=results, period=period, mode=mode, searched_text=text,
                                 documents_in_scope=found.documents_in_scope,
                                 candidates=found.pool, reranked=found.reranked,
                                 scope_provenance=provenance, trace=ctx.trace("search"))


def render_header(mode: str, period: PeriodOut, in_scope: int | None, count: int) -> str:
    parts = [f"mode: {mode}", f"{count} result(s)"]
    if period.year_min is not None or period.year_max is not None:
        parts.append(period.note or f"period applied: {period.year_min or '…'}–"
                     f"{period.year_max or '…'}")
    if in_scope is not None:
        parts.append(f"{in_scope} document(s) in scope")
    return " · ".join(parts)


def render(out: SearchDocumentsOutput) -> str:
    blocks = [render_header(out.mode, out.period, out.documents_in_scope, len(out.results))]
    if not out.results:
        blocks.append("No passage found. Say so rather than answering from memory.")
    blocks += [render_passage(i, p) for i, p in enumerate(out.results, start=1)]
    blocks.append(render_trace(out.trace))
    return "\n\n---\n\n".join(blocks)


SPEC = ToolSpec(
    name="search_documents",
    title="Search the library",
    description=(
        "Find passages that answer a research question. Ask in English natural language. By "
        "default dense and BM25 results are fused by reciprocal rank (hybrid); mode='dense' is "
        "meaning only, mode='bm25' exact words only (acronyms, tickers, formula names). Filters: "
        "year range, author, document, a stored scope session; a period written in the query "
        "becomes a year filter. Returns at most 2 passages per document, each with a cite line "
        "to copy, an anchor and flags; read a cut passage in full with get_passage. Not for "
        "listing the bibliography (list_documents) or checking a quote (verify_citation). Cost: "
        "one embedding (~20 ms warm; the first call of a process loads the model)."),
    input_model=SearchDocumentsInput, output_model=SearchDocumentsOutput, handler=handle,
    render=render, window="search")
