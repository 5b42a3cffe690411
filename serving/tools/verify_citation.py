"""verify_citation and verify_citations: deterministic quote checks against canonical text."""

from __future__ import annotations

from pydantic import BaseModel, Field, ValidationError, model_validator

from corpus.ids import ChunkId, DocumentId
from serving.citation import (MAX_BATCH, MAX_BATCH_BYTES, MAX_QUOTE_CHARS, MIN_QUOTE_CHARS,
                              CitationResult, verify_batch, verify_quote)
from serving.contract import Trace
from serving.errors import InvalidArgument, NotFound, describe_validation_error
from serving.schemas import render_trace
from serving.tools import ToolInput, ToolSpec
from serving.tools.sessions import SessionRef, evidence_from_session

SHOWN = 5  # unknown ids named in one message (`fields` lists them all)


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
    citations: list[CitationItem] | None = Field(None, min_length=1, max_length=MAX_BATCH, description=(
        f"Quotes to check, in order: 1 to {MAX_BATCH} items {{document_id, quote, chunk_id?}}."))
    evidence: SessionRef | None = Field(None, description=(
        'A stored `evidence` session to check instead of `citations`, e.g. {"session": "answer-1"}.'))

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


class _EvidenceItems(ToolInput):
    items: list[CitationItem]


def _require_known(reader, items: list[dict], where: str) -> None:
    """Every document_id and chunk_id must be served, or nothing is checked: an unknown id is the
    caller's mistake (as in every tool), so a `not_found` status always means a served document
    that does not hold the quote."""
    unknown = []
    for i, item in enumerate(items):
        prefix = f"{where}.{i}." if where else ""
        if item["document_id"] not in reader.documents:
            unknown.append(f"{prefix}document_id")
        if item.get("chunk_id") is not None and item["chunk_id"] not in reader.passages:
            unknown.append(f"{prefix}chunk_id")
    if unknown:
        shown = ", ".join(unknown[:SHOWN]) + (f" and {len(unknown) - SHOWN} more" if len(unknown) > SHOWN else "")
        raise NotFound(f"unknown id(s) at {shown}: not in the served corpus, nothing was checked; "
                       "list_documents gives the valid document_ids", fields=unknown)


def handle_one(ctx, args: VerifyCitationInput) -> VerifyCitationOutput:
    reader = ctx.engine.reader
    _require_known(reader, [args.model_dump()], "")
    result = verify_quote(reader, args.document_id, args.quote, args.chunk_id)
    return VerifyCitationOutput(**result.model_dump(), trace=ctx.trace(None))


def _session_items(ctx, name: str) -> tuple[list[dict], str]:
    """An evidence session's items, held to the limits a `citations` list is held to."""
    items, provenance = evidence_from_session(ctx, name)
    try:
        checked = _EvidenceItems.model_validate({"items": items}).items
    except ValidationError as exc:
        error = describe_validation_error(exc)
        raise InvalidArgument(f"evidence session {name!r}: {error.message}",
                              fields=[f"evidence.{f}" for f in error.fields]) from exc
    return [item.model_dump() for item in checked], provenance


def handle_batch(ctx, args: VerifyCitationsInput) -> VerifyCitationsOutput:
    provenance = None
    if args.evidence is not None:
        items, provenance = _session_items(ctx, args.evidence.session)
        where = "evidence.items"
    else:
        items, where = [item.model_dump() for item in args.citations or []], "citations"
    reader = ctx.engine.reader
    _require_known(reader, items, where)
    results = verify_batch(reader, items)
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


_WHEN = ("Use it before putting any quotation in an answer: only `verified` (exact) or "
         "`verified_normalised` quotes may stand between quotation marks; `not_found` means the "
         "document does not hold the quote; `closest` then gives its nearest passage (if any shares "
         "words), similarity and differing words: quote that, or paraphrase. An unknown document_id or chunk_id is an "
         "error, not a result, in both verify tools, so `not_found` keeps that one meaning.")
_UNKNOWN_IDS = ("not_found", "an unknown document_id or chunk_id")
SPECS = [
    ToolSpec(
        name="verify_citation", title="Verify a quote",
        description=("Check that one quote occurs in a served document, and where: canonical "
                     "character offsets, occurrences, the covering chunk_id. " + _WHEN + " "
                     "Deterministic, no language model: whitespace, dashes, quote marks, "
                     "ligatures, case, line-break hyphenation and Markdown markup are normalised; "
                     "'…' or '...' splits a quote into ordered segments. Quotes of "
                     f"{MIN_QUOTE_CHARS} to {MAX_QUOTE_CHARS:,} characters. For several quotes use "
                     "verify_citations. Cheap: milliseconds once the document is cached."),
        input_model=VerifyCitationInput, output_model=VerifyCitationOutput, handler=handle_one,
        render=render_one,
        errors=(_UNKNOWN_IDS, ("invalid_argument", f"a quote shorter than {MIN_QUOTE_CHARS} or "
                                                   f"longer than {MAX_QUOTE_CHARS:,} characters"))),
    ToolSpec(
        name="verify_citations", title="Verify several quotes",
        description=(f"Check up to {MAX_BATCH} quotes ({MAX_BATCH_BYTES:,} bytes in all), or a "
                     "stored `evidence` session, in one call: one verify_citation result each, in "
                     "order, and a summary; each document is read once. Matching and quote bounds as "
                     "in verify_citation. " + _WHEN + " The ids of every item are checked first: "
                     "one unknown id fails the call and `fields` names every such item."),
        input_model=VerifyCitationsInput, output_model=VerifyCitationsOutput,
        handler=handle_batch, render=render_batch,
        errors=(("not_found", "an unknown document_id or chunk_id in any item, or an unknown "
                              "evidence session"),
                ("invalid_argument", "both or neither of citations and evidence, too many quotes "
                                     "or bytes, a quote out of bounds, a session that is not "
                                     "evidence"))),
]
