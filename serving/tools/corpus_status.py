"""corpus_status: what is served — counts, coverage, signature, configuration, index coherence.

The one tool that answers on an incoherent or stale state (the server's coherence gate lets it
through): it says what is wrong and what to run, which every other tool's error only points to.
"""

from __future__ import annotations

import logging

from pydantic import BaseModel, Field

from serving.answer.contract import render_trace
from serving.answer.outputs import Trace
from serving.toolkit.context import ToolContext
from serving.toolkit.tool_spec import ToolInput, ToolSpec

log = logging.getLogger(__name__)


class CorpusStatusInput(ToolInput):
    pass  # no arguments (a docstring would be published as the schema's description)


class Coverage(BaseModel):
    with_title: int
    with_authors: int
    with_year: int
    undated: int
    year_min: int | None
    year_max: int | None


TEXT_SCAN_MAX = 2000  # documents whose parse records a status call reads; above, list_documents pages them


class TextState(BaseModel):
    flagged_garbled: list[str] = Field(
        description=(
            "document_ids whose text layer is broken (garbled glyphs or mostly unattested words); "
            "their passages carry the garbled_text flag. Per-document quality: list_documents."
        )
    )
    repaired: int = Field(description="Documents with wrongly mapped glyphs restored or page-broken words rejoined.")
    median_attested_share: float | None = Field(
        description="Median share of prose words the library vocabulary attests."
    )


def _text_state(reader) -> TextState | None:
    """From each document's parse record; None past TEXT_SCAN_MAX documents (a status stays cheap)."""
    if len(reader.documents) > TEXT_SCAN_MAX:
        return None
    parsed = [e.parsed for e in reader.documents.values()]
    quality = [p.text_quality for p in parsed if p.text_quality is not None]
    shares = sorted(q.attested_share for q in quality)
    return TextState(
        flagged_garbled=sorted(p.document_id for p in parsed if p.garbled_text),
        repaired=sum(1 for q in quality if q.repairs or q.joined_words),
        median_attested_share=shares[len(shares) // 2] if shares else None,
    )


class IndexState(BaseModel):
    name: str
    status: str = Field(description="coherent, stale, missing or unreadable")
    signature: str | None
    detail: str
    rebuild: str | None


class CorpusStatusOutput(BaseModel):
    documents: int | None = Field(description="Served documents; null when the corpus cannot be read.")
    passages: int | None = Field(description="Served passages; null when the corpus cannot be read.")
    corpus_signature: str
    config_hash: str
    embedding_model: str
    embedding_revision: str
    vector_backend: str
    default_mode: str
    reranker: str = Field(description="Cross-encoder used by hybrid mode, or 'none'.")
    late_interaction: str = Field(
        description=("'on' when hybrid mode ranks its candidates by MaxSim over the token index; else 'off' and why.")
    )
    graph_extractor: str | None
    graph_counts: dict[str, int]
    metadata_coverage: Coverage | None
    text: TextState | None = Field(
        description=(
            f"Text-layer quality; null when the corpus cannot be read or holds over {TEXT_SCAN_MAX} documents."
        )
    )
    coherent: bool = Field(description="False: every other tool refuses with incoherent_state.")
    problem: str | None = Field(description="What is incoherent, in one sentence; null when coherent.")
    rebuild: list[str] = Field(description="Commands that repair the state; empty when coherent.")
    indexes: list[IndexState]
    trace: Trace


def _corpus(ctx: ToolContext) -> tuple[int | None, int | None, Coverage | None, TextState | None]:
    """Counts, coverage and text flags; None when the corpus cannot be read (a status must answer)."""
    try:
        reader = ctx.engine.parts.reader
    except Exception:
        log.warning("corpus_status: the corpus cannot be read", exc_info=True)
        return None, None, None, None
    entries = list(reader.documents.values())
    years = [e.year for e in entries if e.year is not None]
    coverage = Coverage(
        with_title=sum(1 for d in reader.documents if reader.title(d)),
        with_authors=sum(1 for e in entries if e.authors),
        with_year=len(years),
        undated=len(entries) - len(years),
        year_min=min(years, default=None),
        year_max=max(years, default=None),
    )
    return len(reader.documents), len(reader.passages), coverage, _text_state(reader)


def _late_interaction(ctx: ToolContext) -> str:
    if not ctx.config.late_interaction:
        return "off (QUANT_RAG_LATE_INTERACTION=false)"
    try:
        return "on" if ctx.engine.parts.tokens else "off: no token index for this state (run `quant-rag ingest`)"
    except Exception:  # a status must answer
        log.warning("corpus_status: the token index cannot be opened", exc_info=True)
        return "off: the token index cannot be opened"


def handle(ctx: ToolContext, args: CorpusStatusInput) -> CorpusStatusOutput:
    engine, report = ctx.engine, ctx.coherence
    documents, passages, coverage, text = _corpus(ctx)
    try:
        graph = engine.parts.graph
        extractor, counts = graph.extractor, dict(graph.counts())
    except Exception:  # a status report must answer even when the graph cannot be opened
        extractor, counts = None, {}
    config = ctx.config
    return CorpusStatusOutput(
        documents=documents,
        passages=passages,
        corpus_signature=report.signature,
        config_hash=ctx.config_hash,
        embedding_model=config.embedding_model,
        embedding_revision=config.embedding_revision,
        vector_backend=config.vector_backend,
        default_mode=config.default_mode,
        reranker=engine.parts.reranker_name,
        late_interaction=_late_interaction(ctx),
        graph_extractor=extractor,
        graph_counts=counts,
        metadata_coverage=coverage,
        text=text,
        coherent=report.coherent,
        problem=None if report.coherent else report.problem(),
        rebuild=report.rebuild_commands,
        indexes=[
            IndexState(
                name=a.name,
                status=a.status,
                signature=a.signature,
                detail=a.detail,
                rebuild=None if a.status == "coherent" else a.rebuild,
            )
            for a in report.artefacts
        ],
        trace=ctx.trace(None),
    )


def render(out: CorpusStatusOutput) -> str:
    c = out.metadata_coverage
    counted = (
        f"{out.documents} documents, {out.passages} passages" if out.documents is not None else "corpus unreadable"
    )
    lines = [
        f"{counted} · corpus signature {out.corpus_signature} · config {out.config_hash}",
        f"embedding: {out.embedding_model} ({out.embedding_revision}) · vectors: "
        f"{out.vector_backend} · default mode: {out.default_mode} · reranker: {out.reranker} · "
        f"late interaction: {out.late_interaction}",
        f"graph: extractor {out.graph_extractor or 'none'} · "
        + (", ".join(f"{k} {v}" for k, v in out.graph_counts.items()) or "no counts"),
        (
            f"metadata: title {c.with_title}, authors {c.with_authors}, year {c.with_year} "
            f"({c.undated} undated; years {c.year_min}–{c.year_max})"
            if c
            else "metadata: unreadable"
        ),
        (
            f"text: {len(out.text.flagged_garbled)} document(s) flagged garbled"
            + (f" ({', '.join(out.text.flagged_garbled)})" if out.text.flagged_garbled else "")
            + f", {out.text.repaired} repaired"
            if out.text
            else "text: not measured"
        ),
        "indexes: "
        + "; ".join(
            f"{i.name} {i.status} (signature {i.signature or 'none'})" + (f" rebuild: {i.rebuild}" if i.rebuild else "")
            for i in out.indexes
        ),
    ]
    if not out.coherent:
        lines.append(f"NOT COHERENT: {out.problem}")
        lines += [f"run: {command}" for command in out.rebuild]
    lines.append(render_trace(out.trace))
    return "\n".join(lines)


SPEC = ToolSpec(
    name="corpus_status",
    title="Corpus status",
    description=(
        "What this server serves and whether it can: counts, coverage, text quality, models, "
        "index coherence. Use it at a session's start, to explain an empty result, or after "
        "incoherent_state: it alone answers then, and says what to rebuild."
    ),
    input_model=CorpusStatusInput,
    output_model=CorpusStatusOutput,
    handler=handle,
    render=render,
    needs_coherent_state=False,
)
