"""search_documents: find passages for a question (the configured default mode), with bibliographic filters."""

from __future__ import annotations

from pydantic import BaseModel, Field

from corpus.config import ServedConfig
from serving.context import ToolContext
from serving.contract import SEARCH_WINDOW, Trace
from serving.engine import Mode as ModeName
from serving.known_ids import require_known_documents
from serving.schemas import PassageOut, PeriodOut, passage_out, render_passage, render_trace
from serving.scope import Filters, resolve_filters
from serving.tools import ToolSpec

MAX_QUERY_CHARS = 2000
MAX_RESULTS = 20


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
    evidence: float | None = Field(description=(
        "Best dense similarity of the question to any passage in scope (null in bm25 mode)."))
    no_answer_likely: bool = Field(description=(
        "True when `evidence` is below the calibrated threshold: the library likely holds no answer."))
    scope_provenance: str | None = Field(description="Provenance of the scope session used.")
    trace: Trace


def handle(ctx: ToolContext, args: SearchDocumentsInput) -> SearchDocumentsOutput:
    require_known_documents(ctx, args)
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
                                 evidence=found.evidence, no_answer_likely=no_answer_likely(
                                     found.evidence, ctx.config.abstain_below),
                                 scope_provenance=provenance, trace=ctx.trace("search"))


def no_answer_likely(evidence: float | None, threshold: float) -> bool:
    """The abstention signal: the question's best dense similarity in scope is below threshold."""
    return evidence is not None and evidence < threshold


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
    elif out.no_answer_likely:
        blocks.append(f"The library likely holds no answer (best similarity {out.evidence:.3f} is below "
                      "the calibrated threshold): check these passages before using any, and say so "
                      "if none answers.")
    blocks += [render_passage(i, p) for i, p in enumerate(out.results, start=1)]
    blocks.append(render_trace(out.trace))
    return "\n\n---\n\n".join(blocks)


_DEFAULTS = ServedConfig()

SPEC = ToolSpec(
    name="search_documents",
    title="Search the library",
    description=(
        "Find passages that answer a research question. Ask in English natural language. By "
        f"default ({_DEFAULTS.default_mode}) dense and BM25 results are fused by reciprocal rank; mode='dense' is "
        "meaning only, mode='bm25' exact words only (acronyms, tickers, formula names). Filters: "
        "year range, author, document, a stored scope session; a period written in the query "
        "becomes a year filter (the answer says which words became which bounds). Returns at most "
        f"{_DEFAULTS.per_document} passages per document while other documents have candidates, "
        "each with a cite line to copy, an anchor and flags; `no_answer_likely` says when the best "
        "match is too weak to trust. Read a cut passage in full with get_passage. Not for "
        "listing the bibliography (list_documents) or checking a quote (verify_citation). Cost: "
        "one embedding (~20 ms warm; the first call of a process loads the model)."),
    input_model=SearchDocumentsInput, output_model=SearchDocumentsOutput, handler=handle,
    render=render, window="search")
