"""verify_citation: a deterministic check of one quote against a document's canonical text.

Also what verify_citations shares with it: the item model, the id check, the result rendering
and the words on what a result means."""

from __future__ import annotations

from pydantic import Field

from corpus.ids import ChunkId, DocumentId
from serving.answer.contract import render_trace
from serving.answer.errors import NotFound
from serving.answer.outputs import Trace
from serving.citation.verify import (
    MAX_ELLIPSIS_GAP,
    MAX_QUOTE_CHARS,
    MAX_SUPPORTS_CHARS,
    MIN_QUOTE_CHARS,
    CitationResult,
    verify_batch,
)
from serving.toolkit.tool_spec import ToolInput, ToolSpec

SHOWN = 5  # unknown ids named in one message (`fields` lists them all)
QUOTE_SHOWN = 300  # a quote up to this many characters is echoed whole in the text rendering
QUOTE_END = 120  # a longer one by its first and last this many characters
ELLIPSIS_RULE = f"'…' or '...' elides at most {MAX_ELLIPSIS_GAP} characters"


class CitationItem(ToolInput):
    document_id: DocumentId = Field(description="The document it comes from.")
    quote: str = Field(
        min_length=MIN_QUOTE_CHARS,
        max_length=MAX_QUOTE_CHARS,
        description=f"Exact words; {ELLIPSIS_RULE}.",
    )
    chunk_id: ChunkId | None = Field(None, description="The passage it was read in.")
    supports: str | None = Field(
        None,
        max_length=MAX_SUPPORTS_CHARS,
        description="The claim it supports; given back.",
    )


class VerifyCitationInput(CitationItem):
    pass


class VerifyCitationOutput(CitationResult):
    trace: Trace


def require_known(reader, items: list[dict], where: str) -> None:
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
        more = f" and {len(unknown) - SHOWN} more" if len(unknown) > SHOWN else ""
        shown = ", ".join(unknown[:SHOWN]) + more
        raise NotFound(
            f"unknown id(s) at {shown}: not in the served corpus, nothing was checked; "
            "list_documents gives the valid document_ids",
            fields=unknown,
        )


def handle_one(ctx, args: VerifyCitationInput) -> VerifyCitationOutput:
    reader = ctx.engine.parts.reader
    require_known(reader, [args.model_dump()], "")
    result = verify_batch(reader, [args.model_dump()])[0]  # the item whole: its `supports` comes back
    return VerifyCitationOutput(**result.model_dump(), trace=ctx.trace(None))


def render_quote(quote: str) -> str:
    """The quote as the text rendering echoes it: whole up to QUOTE_SHOWN characters, else its
    first and last QUOTE_END characters and how many lie between (structured content has it all)."""
    text = quote.strip()
    if len(text) <= QUOTE_SHOWN:
        return f"“{text}”"
    hidden = len(text) - 2 * QUOTE_END
    return f"“{text[:QUOTE_END]}” [… {hidden:,} characters not shown …] “{text[-QUOTE_END:]}”"


def _matched(r: CitationResult) -> str:
    """What matched, in words: all of the quote, raw or after normalisation, as one span or in parts."""
    n = len(r.quote.strip())
    how = "raw (exact text)" if r.status == "verified" else "after normalisation"
    if len(r.offsets) > 1:
        return f"all {len(r.offsets)} parts of the {n:,}-character quote matched {how}, in order"
    return f"all {n:,} characters matched, {how}"


def render_result(r: CitationResult) -> str:
    """One result with every id a next call needs: document_id, chunk_id, and the get_passage call
    that reads the closest window. A verified quote says that all of it matched; the quote is
    echoed whole when short, else by its head and tail (render_quote)."""
    if r.status == "not_found":
        n = len(r.quote.strip())
        line = f"not_found: {render_quote(r.quote)} ({n:,} characters) in document_id={r.document_id}"
    else:
        line = f"{r.status}: {_matched(r)}: {render_quote(r.quote)} in document_id={r.document_id}"
    if r.offsets:
        line += f" at document offsets {r.offsets} ({r.occurrences} occurrence(s))"
    if r.chunk_id:
        line += f", chunk_id={r.chunk_id}"
    if r.supports:
        line += f"\n  supports: {r.supports[:200]}"
    if r.reason:
        line += f"\n  reason ({r.reason_code}): {r.reason}"
    if r.closest:
        c = r.closest
        diffs = ", ".join(f"{d.get('quote')!r}→{d.get('document')!r}" for d in c.differing_words[:8])
        where = (
            f'get_passage(chunk_id="{c.chunk_id}", offset={c.offset}) reads it'
            if c.chunk_id and c.offset is not None
            else f"chunk_id={c.chunk_id}"
        )
        more = f" (continues in chunk_id={c.continues_in})" if c.continues_in else ""
        line += (
            f"\n  closest: {render_quote(c.text)}\n  "
            f"{where}{more}; document offsets {c.document_offsets}, similarity {c.similarity}, "
            f"{c.word_edits} word edit(s)" + (f": {diffs}" if diffs else "")
        )
    return line


def render_one(out: VerifyCitationOutput) -> str:
    return render_result(out) + "\n" + render_trace(out.trace)


WHEN = (
    "Use it before quoting: only a `verified` or `verified_normalised` quote may stand in "
    "quotation marks; if `not_found`, see `closest`."
)
SPEC = ToolSpec(
    name="verify_citation",
    title="Verify a quote",
    description=(
        "Check that a quote occurs in a served document, and where. " + WHEN + " Quotes of "
        f"{MIN_QUOTE_CHARS} to {MAX_QUOTE_CHARS:,} characters."
    ),
    input_model=VerifyCitationInput,
    output_model=VerifyCitationOutput,
    handler=handle_one,
    render=render_one,
    errors=(
        ("not_found", "unknown document_id or chunk_id"),
        ("invalid_argument", "quote out of bounds"),
    ),
)
