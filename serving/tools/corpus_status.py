"""corpus_status: what is served — counts, coverage, signature, configuration, index coherence."""

from __future__ import annotations

from pydantic import BaseModel, Field

from serving.context import ToolContext
from serving.contract import Trace
from serving.schemas import render_trace
from serving.tools import ToolInput, ToolSpec


class CorpusStatusInput(ToolInput):
    """No arguments."""


class Coverage(BaseModel):
    with_title: int
    with_authors: int
    with_year: int
    undated: int
    year_min: int | None
    year_max: int | None


class IndexState(BaseModel):
    name: str
    status: str = Field(description="coherent, stale, missing or unreadable")
    signature: str | None
    detail: str
    rebuild: str | None


class CorpusStatusOutput(BaseModel):
    documents: int
    passages: int
    corpus_signature: str
    config_hash: str
    embedding_model: str
    embedding_revision: str
    vector_backend: str
    default_mode: str
    reranker: str = Field(description="Cross-encoder used by hybrid mode, or 'none'.")
    graph_extractor: str | None
    graph_counts: dict[str, int]
    metadata_coverage: Coverage
    coherent: bool
    indexes: list[IndexState]
    trace: Trace


def handle(ctx: ToolContext, args: CorpusStatusInput) -> CorpusStatusOutput:
    engine, report = ctx.engine, ctx.coherence
    reader = engine.reader
    entries = list(reader.documents.values())
    years = [e.year for e in entries if e.year is not None]
    coverage = Coverage(with_title=sum(1 for d in reader.documents if reader.title(d)),
                        with_authors=sum(1 for e in entries if e.authors),
                        with_year=len(years), undated=len(entries) - len(years),
                        year_min=min(years, default=None), year_max=max(years, default=None))
    try:
        graph = engine.graph
        extractor, counts = graph.extractor, dict(graph.counts())
    except Exception:  # a status report must answer even when the graph cannot be opened
        extractor, counts = None, {}
    config = ctx.config
    return CorpusStatusOutput(
        documents=len(reader.documents), passages=len(reader.passages),
        corpus_signature=report.signature, config_hash=ctx.config_hash,
        embedding_model=config.embedding_model, embedding_revision=config.embedding_revision,
        vector_backend=config.vector_backend, default_mode=config.default_mode,
        reranker=engine.reranker_name, graph_extractor=extractor, graph_counts=counts,
        metadata_coverage=coverage, coherent=report.coherent,
        indexes=[IndexState(name=a.name, status=a.status, signature=a.signature, detail=a.detail,
                            rebuild=None if a.status == "coherent" else a.rebuild)
                 for a in report.artefacts],
        trace=ctx.trace(None))


def render(out: CorpusStatusOutput) -> str:
    c = out.metadata_coverage
    lines = [
        f"{out.documents} documents, {out.passages} passages · corpus signature "
        f"{out.corpus_signature} · config {out.config_hash}",
        f"embedding: {out.embedding_model} ({out.embedding_revision}) · vectors: "
        f"{out.vector_backend} · default mode: {out.default_mode} · reranker: {out.reranker}",
        f"graph: extractor {out.graph_extractor or 'none'} · "
        + (", ".join(f"{k} {v}" for k, v in out.graph_counts.items()) or "no counts"),
        f"metadata: title {c.with_title}, authors {c.with_authors}, year {c.with_year} "
        f"({c.undated} undated; years {c.year_min}–{c.year_max})",
        "indexes: " + "; ".join(f"{i.name} {i.status}" for i in out.indexes),
        render_trace(out.trace)]
    return "\n".join(lines)


SPEC = ToolSpec(
    name="corpus_status",
    title="Corpus status",
    description=(
        "What this server serves: document and passage counts, metadata coverage (how many "
        "documents are undated, the year span), corpus signature, config hash, embedding model, "
        "vector backend, reranker, graph extractor and the coherence of every index. Use it once "
        "at the start of a session or to explain an empty or filtered result. Not for content. "
        "Cheap: no model."),
    input_model=CorpusStatusInput, output_model=CorpusStatusOutput, handler=handle,
    render=render)
