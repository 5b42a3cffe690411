"""verify_citations: many quotes, or a stored evidence session, checked in one call."""

from __future__ import annotations

from pydantic import BaseModel, Field, ValidationError, model_validator

from serving.answer.contract import render_trace
from serving.answer.errors import InvalidArgument, describe_validation_error
from serving.answer.outputs import Trace
from serving.citation.verify import MAX_BATCH, MAX_BATCH_BYTES, CitationResult, verify_batch
from serving.toolkit.session_refs import SessionRef, evidence_from_session
from serving.toolkit.tool_spec import ToolInput, ToolSpec
from serving.tools.verify_citation import CitationItem, render_result, require_known


class VerifyCitationsInput(ToolInput):
    citations: list[CitationItem] | None = Field(
        None,
        min_length=1,
        max_length=MAX_BATCH,
        description="Quotes to check, in order.",
    )
    evidence: SessionRef | None = Field(None, description="A stored evidence session instead.")

    @model_validator(mode="after")
    def _exactly_one(self) -> VerifyCitationsInput:
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
    evidence_session: str | None = Field(None, description="Name of the evidence session checked.")
    evidence_provenance: str | None = Field(description="Provenance of the evidence session used.")
    trace: Trace


class _EvidenceItems(ToolInput):
    items: list[CitationItem]


def _session_items(ctx, name: str) -> tuple[list[dict], str]:
    """An evidence session's items, held to the limits a `citations` list is held to."""
    items, provenance = evidence_from_session(ctx, name)
    try:
        checked = _EvidenceItems.model_validate({"items": items}).items
    except ValidationError as exc:
        error = describe_validation_error(exc)
        raise InvalidArgument(
            f"evidence session {name!r}: {error.message}", fields=[f"evidence.{f}" for f in error.fields]
        ) from exc
    return [item.model_dump() for item in checked], provenance


def handle_batch(ctx, args: VerifyCitationsInput) -> VerifyCitationsOutput:
    provenance, session = None, None
    if args.evidence is not None:
        session = args.evidence.session
        items, provenance = _session_items(ctx, args.evidence.session)
        where = "evidence.items"
    else:
        items, where = [item.model_dump() for item in args.citations or []], "citations"
    reader = ctx.engine.parts.reader
    require_known(reader, items, where)
    results = verify_batch(reader, items)
    statuses = [r.status for r in results]
    summary = Summary(
        checked=len(results),
        verified=statuses.count("verified"),
        verified_normalised=statuses.count("verified_normalised"),
        not_found=statuses.count("not_found"),
    )
    return VerifyCitationsOutput(
        summary=summary,
        results=results,
        evidence_session=session,
        evidence_provenance=provenance,
        trace=ctx.trace(None),
    )


def render_batch(out: VerifyCitationsOutput) -> str:
    s = out.summary
    head = (
        f"{s.checked} checked: {s.verified} verified, {s.verified_normalised} verified after "
        f"normalisation, {s.not_found} not found"
    )
    if out.evidence_session:
        head += f" (evidence session {out.evidence_session}, provenance {out.evidence_provenance})"
    return "\n".join([head, *map(render_result, out.results), render_trace(out.trace)])


SPEC = ToolSpec(
    name="verify_citations",
    title="Verify several quotes",
    description=(
        f"Check up to {MAX_BATCH} quotes ({MAX_BATCH_BYTES:,} bytes in all), or a stored "
        "`evidence` session, in one call: one verify_citation result each. Use it to check an "
        "answer's quotes before giving it."
    ),
    input_model=VerifyCitationsInput,
    output_model=VerifyCitationsOutput,
    handler=handle_batch,
    render=render_batch,
    errors=(
        ("not_found", "an unknown id or evidence session"),
        ("invalid_argument", "not one of citations and evidence, or over a bound"),
    ),
)
