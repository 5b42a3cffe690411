"""search_documents: find passages for a question (the configured default mode), with bibliographic filters."""

from __future__ import annotations

from pydantic import BaseModel, Field

from serving.context import ToolContext
from serving.contract import SEARCH_WINDOW, Trace
from serving.engine import Mode as ModeName
from serving.known_ids import require_known_documents
from serving.schemas import PassageOut, PeriodOut, passage_out, render_passage, render_trace
from serving.abstention import no_answer_probability
from serving.empty_scope import EmptyScope, render as render_empty_scope
from serving.scope import FILTER_ERRORS, Filters, empty_scope, resolve_filters
from serving.tools import ToolSpec

MAX_QUERY_CHARS = 2000
MAX_RESULTS = 20


class SearchDocumentsInput(Filters):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description=(
        "The research question or topic, in English natural language."))
    limit: int = Field(5, ge=1, le=MAX_RESULTS, description="Passages to return, best first.")
    mode: ModeName | None = Field(None, description=(
        "Omit for the server's default (named in this tool's description). hybrid: dense and BM25 "
        "candidates ranked by token-level similarity; dense: meaning only; bm25: exact words only "
        "(identifiers, numbers)."))


class SearchDocumentsOutput(BaseModel):
    results: list[PassageOut]
    period: PeriodOut
    mode: ModeName
    searched_text: str = Field(description="The text actually searched (period clause removed).")
    documents_in_scope: int | None = Field(description="Documents passing the filters; null = all.")
    candidates: int = Field(description="Candidates retrieved before selection.")
    reranked: bool
    late_interaction: bool = Field(description=(
        "True when the hybrid candidates were ranked by MaxSim over token vectors (scores are MaxSim)."))
    evidence: float | None = Field(description=(
        "Best dense similarity of the question to any passage in scope (null in bm25 mode)."))
    no_answer_probability: float | None = Field(None, description=(
        "Probability (0-1, one scale in every mode) that the library holds no answer; null when "
        "the scope is empty."))
    no_answer_likely: bool = Field(description=(
        "True when `no_answer_probability` reaches the calibrated threshold: the library likely "
        "holds no answer. Never true for an empty scope (see `empty_scope`)."))
    empty_scope: EmptyScope | None = Field(None, description=(
        "Set when the filters match no document: which filter failed, why, and the nearest values."))
    scope_provenance: str | None = Field(description="Provenance of the scope session used.")
    trace: Trace


def handle(ctx: ToolContext, args: SearchDocumentsInput) -> SearchDocumentsOutput:
    require_known_documents(ctx, args)
    scope, period, text, provenance = resolve_filters(ctx, args, args.query)
    mode = args.mode or ctx.config.default_mode
    found = ctx.engine.retrieve(text, mode, scope, limit=args.limit)
    empty = empty_scope(ctx, scope, "search_documents") if found.documents_in_scope == 0 else None
    return build_output(ctx, found, period, mode, text, provenance, empty)


def build_output(ctx, found, period: PeriodOut, mode: str, text: str,
                 provenance: str | None, empty: EmptyScope | None = None) -> SearchDocumentsOutput:
    """The structured answer for a retrieval (hits served within the search window)."""
    reader = ctx.engine.reader
    results = [passage_out(reader, reader.passages[hit.chunk_id], SEARCH_WINDOW, score=hit.score)
               for hit in found.hits]
    probability = no_answer_probability(ctx.engine, text, found)
    return SearchDocumentsOutput(results=results, period=period, mode=mode, searched_text=text,
                                 documents_in_scope=found.documents_in_scope,
                                 candidates=found.pool, reranked=found.reranked,
                                 late_interaction=found.late_interaction,
                                 evidence=found.evidence, no_answer_probability=probability,
                                 no_answer_likely=no_answer_likely(probability, ctx.config.no_answer_threshold),
                                 empty_scope=empty, scope_provenance=provenance, trace=ctx.trace("search"))


def no_answer_likely(probability: float | None, threshold: float) -> bool:
    """The abstention signal (serving.abstention): P(no answer) reaches the threshold."""
    return probability is not None and probability >= threshold


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
    if out.empty_scope is not None:
        blocks.append(render_empty_scope(out.empty_scope))
    elif not out.results:
        blocks.append("No passage found. Say so rather than answering from memory.")
    elif out.no_answer_likely:
        blocks.append(f"The library likely holds no answer (probability {out.no_answer_probability:.2f} "
                      "that it does not): check these passages before using any, and say so "
                      "if none answers.")
    blocks += [render_passage(i, p) for i, p in enumerate(out.results, start=1)]
    blocks.append(render_trace(out.trace))
    return "\n\n---\n\n".join(blocks)


def describe(ctx: ToolContext) -> str:
    """The description, quoting the configured mode, per-document cap and abstention threshold."""
    c = ctx.config
    fill = " (more when fewer documents match)" if c.fill_limit else ""
    return (
        "Find passages that answer a research question. Use it first for any question the library "
        f"may answer; ask in English. mode={c.default_mode} "
        "unless `mode` is given (hybrid ranks dense and BM25 candidates token by token; bm25 suits exact "
        "tokens: acronyms, tickers, formula names). Filters: inclusive year bounds (which exclude "
        "undated documents), author, document, a stored scope session. A period in the query "
        "(\"papers before 2010\" → year_max=2009) becomes year bounds and leaves the searched "
        "text; `period` gives the clause and each bound's source (caller, question, session; a "
        f"bound you pass wins). Returns up to `limit` passages, at most {c.per_document} per "
        f"document{fill}, each with a `cite` line to copy, an anchor and flags; text over "
        f"{SEARCH_WINDOW:,} characters is cut (read on with get_passage). `no_answer_likely`: "
        f"`no_answer_probability` (any mode) is at least {c.no_answer_threshold}, so the library "
        "likely holds no answer; say so rather than guess. Filters that match no document give "
        "`empty_scope` (the filter at fault, the nearest valid values): fix the filter. Not for the bibliography (list_documents) or "
        "checking a quote (verify_citation). Cost: one query embedding (tens of milliseconds "
        "warm; a process's first call loads the model).")


SPEC = ToolSpec(
    name="search_documents",
    title="Search the library",
    description=describe,
    input_model=SearchDocumentsInput, output_model=SearchDocumentsOutput, handler=handle,
    render=render, window="search", errors=FILTER_ERRORS)
