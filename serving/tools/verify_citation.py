"""verify_citation and verify_citations: deterministic quote checks against canonical text."""

from __future__ import annotations

from pydantic import BaseModel, Field, model_validator

from corpus.ids import ChunkId, DocumentId
from serving.citation import (MAX_BATCH, MAX_BATCH_BYTES, MAX_QUOTE_CHARS, MIN_QUOTE_CHARS,
                              CitationResult, verify_batch, verify_quote)
from serving.contract import Trace
from serving.errors import NotFound
from serving.schemas import render_trace
from serving.tools import ToolInput, ToolSpec
from serving.tools.sessions import SessionRef, evidence_from_session


class CitationItem(ToolInput):
    document_id: DocumentId = Field(description="document_id of the passage the quote comes from.")
    quote: str = Field(min_length=MIN_QUOTE_CHARS, max_length=MAX_QUOTE_CHARS, description=(
        f"The exact words to check (at least {MIN_QUOTE_CHARS} characters; '…' or '...' "
        "marks an elision, checked as ordered segments)."))
    chunk_id: ChunkId | None = Field(None, description=(
        "Optional chunk_id the quote was read in; preferred when the quote occurs twice."))


class VerifyCitationInput(CitationItem):
    pass


class VerifyCitationOutput(CitationResult):
    trace: Trace


class VerifyCitationsInput(ToolInput):
    citations: list[CitationItem] | None = Field(None, min_length=1, max_length=MAX_BATCH,
                                                 description="Quotes to check, in order.")
    evidence: SessionRef | None = Field(None, description=(
        'A stored `evidence` session to check instead, e.g. {"session": "answer-1"}.'))

    @model_validator(mode="after")
    def _exactly_one(self) -> "VerifyCitationsInput":
        if (self.citations is None) == (self.evidence is None):
            raise ValueError("give exactly one of `citations` or `evidence`")
        size = sum(len(c.quote.encode("utf-8")) for c in self.citations or [])
        if size > MAX_BATCH_BYTES:
            raise ValueError(f"quotes total {size} bytes; at most {MAX_BATCH_BYTES} per call")
        return self


class Summary(BaseModel):
    checked: int
    verified: int
    verified_normalised: int
    not_found: int


class VerifyCitationsOutput(BaseModel):
    summary: Summary
    results: list[CitationResult]
    evidence_provenance: str | None = Field(description="Provenance of the evidence session used.")
    trace: Trace


def handle_one(ctx, args: VerifyCitationInput) -> VerifyCitationOutput:
    reader = ctx.engine.reader
    if args.document_id not in reader.documents:
        raise NotFound(f"unknown document_id {args.document_id}", fields=["document_id"])
    if args.chunk_id is not None and args.chunk_id not in reader.passages:
        raise NotFound(f"unknown chunk_id {args.chunk_id}", fields=["chunk_id"])
    result = verify_quote(reader, args.document_id, args.quote, args.chunk_id)
    return VerifyCitationOutput(**result.model_dump(), trace=ctx.trace(None))


def handle_batch(ctx, args: VerifyCitationsInput) -> VerifyCitationsOutput:
    provenance = None
    if args.evidence is not None:
        items, provenance = evidence_from_session(ctx, args.evidence.session)
    else:
        items = [item.model_dump() for item in args.citations or []]
    results = verify_batch(ctx.engine.reader, items)
    statuses = [r.status for r in results]
    summary = Summary(checked=len(results), verified=statuses.count("verified"),
                      verified_normalised=statuses.count("verified_normalised"),
                      not_found=statuses.count("not_found"))
    return VerifyCitationsOutput(summary=summary, results=results,
                                 evidence_provenance=provenance, trace=ctx.trace(None))


def render_result(r: CitationResult) -> str:
    line = f"{r.status}: “{r.quote[:120]}” in {r.document_id}"
    if r.offsets:
        line += f" at {r.offsets} ({r.occurrences} occurrence(s))"
    if r.reason:
        line += f"\n  reason: {r.reason}"
    if r.closest:
        c = r.closest
        diffs = ", ".join(f"{d.get('quote')!r}→{d.get('document')!r}" for d in c.differing_words[:8])
        line += (f"\n  closest: offsets {c.offsets}, similarity {c.similarity}, {c.word_edits} word "
                 f"edit(s)" + (f": {diffs}" if diffs else ""))
    return line


def render_one(out: VerifyCitationOutput) -> str:
    return render_result(out) + "\n" + render_trace(out.trace)


def render_batch(out: VerifyCitationsOutput) -> str:
    s = out.summary
    head = (f"{s.checked} checked: {s.verified} verified, {s.verified_normalised} verified after "
            f"normalisation, {s.not_found} not found")
    return "\n".join([head, *map(render_result, out.results), render_trace(out.trace)])


_WHEN = ("Use it before putting any quotation in an answer; only 'verified' or "
         "'verified_normalised' quotes may be quoted. No language model: a deterministic match "
         "against the document's canonical text (whitespace, dashes, quotes, ligatures, case and "
         "line-break hyphenation normalised); a miss reports the closest passage, its similarity "
         "and the differing words.")
SPECS = [
    ToolSpec(
        name="verify_citation", title="Verify a quote",
        description=("Check that one quote occurs in a document and where (canonical character "
                     "offsets). " + _WHEN + " For several quotes use verify_citations. Cheap: a "
                     "few milliseconds once the document is cached."),
        input_model=VerifyCitationInput, output_model=VerifyCitationOutput, handler=handle_one,
        render=render_one),
    ToolSpec(
        name="verify_citations", title="Verify several quotes",
        description=("Check a list of quotes (or a stored `evidence` session) in one call; each "
                     "document is read once. " + _WHEN + f" At most {MAX_BATCH} quotes per call."),
        input_model=VerifyCitationsInput, output_model=VerifyCitationsOutput,
        handler=handle_batch, render=render_batch),
]
