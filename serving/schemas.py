"""Output models shared by several tools, and the builder of a served passage."""

from __future__ import annotations

from pydantic import BaseModel, Field

from corpus.models import Passage, PassageRole
from corpus.reading.reader import CorpusReader
from serving.contract import (Anchor, Cite, Flags, Trace, anchor_for, cite_for, quality_flags,
                              serve_text)


class PassageOut(BaseModel):
    """One served passage: what to cite, where it is, and its (possibly cut) text."""

    chunk_id: str = Field(description="Working key of the passage (do not cite).")
    document_id: str = Field(description="Working key of the document (do not cite).")
    score: float | None = Field(description="Retrieval score in the mode used; null when read directly.")
    cite: Cite = Field(description="The only thing to copy into an answer.")
    section: list[str] = Field(description="Section path of the passage, outermost first.")
    role: PassageRole = Field("body", description=(
        "body, or the document furniture it is: contents, title_block, references, index (searches "
        "return furniture only when the question asks for it)."))
    text: str
    anchor: Anchor
    flags: Flags
    truncated: bool = Field(description="True when the passage goes on past this window.")
    remaining_chars: int = Field(description="Characters left after this window.")
    offset: int = Field(description="Character offset in the passage where this window starts.")
    next_offset: int | None = Field(description=(
        "The paging field: pass it as get_passage's `offset` to read on; null when nothing remains."))
    continuation: str | None = Field(description=(
        "The get_passage call that reads on (offset = next_offset), written out; null when whole."))


class PeriodOut(BaseModel):
    """The year filter applied to a search, and where it came from."""

    year_min: int | None
    year_max: int | None
    clause: str | None = Field(description="The period phrase read from the query, if any.")
    source_min: str | None = Field(description="Where year_min came from: caller, question, session.")
    source_max: str | None = Field(description="Where year_max came from: caller, question, session.")
    note: str | None = Field(description="A sentence stating the period applied.")
    words_min: str | None = Field(None, description="The query's words that set year_min (source question).")
    words_max: str | None = Field(None, description="The query's words that set year_max (source question).")


class DocumentOut(BaseModel):
    document_id: str
    title: str | None
    authors: list[str]
    year: int | None
    venue: str | None
    cite: Cite
    passages: int
    format: str


class WithTrace(BaseModel):
    trace: Trace


def cite_of(reader: CorpusReader, document_id: str, page_start: int | None = None,
            page_end: int | None = None) -> Cite:
    entry = reader.documents[document_id]
    return cite_for(entry.authors, entry.year, reader.title(document_id), page_start, page_end)


def document_out(reader: CorpusReader, document_id: str) -> DocumentOut:
    entry = reader.documents[document_id]
    venue = entry.metadata.venue.value
    return DocumentOut(document_id=document_id, title=reader.title(document_id),
                       authors=entry.authors, year=entry.year,
                       venue=venue if isinstance(venue, str) else None,
                       cite=cite_of(reader, document_id), format=entry.source.format,
                       passages=len(reader.by_document.get(document_id, [])))


def passage_out(reader: CorpusReader, passage: Passage, window: int, *, score: float | None,
                offset: int = 0) -> PassageOut:
    """Serve `passage` from `offset` within `window`, with its cite, anchor and flags."""
    served = serve_text(passage.text, window, passage.chunk_id, offset)
    sha = reader.documents[passage.document_id].parsed.canonical_sha256
    return PassageOut(
        chunk_id=passage.chunk_id, document_id=passage.document_id, score=score,
        cite=cite_of(reader, passage.document_id, passage.page_start, passage.page_end),
        section=list(passage.section), role=passage.role, text=served.text,
        anchor=anchor_for(passage, sha),
        flags=quality_flags(served.text, served.truncated, passage.garbled_text),
        truncated=served.truncated, remaining_chars=served.remaining_chars, offset=served.offset,
        next_offset=served.next_offset, continuation=served.continuation)


def render_passage(index: int | None, p: PassageOut) -> str:
    """Readable block of one passage: cite line first, working keys after, then the text."""
    head = f"[{index}] " if index is not None else ""
    score = f" score={p.score:.4f}" if p.score is not None else ""
    lines = [f"{head}cite: {p.cite.text}{score}"]
    if p.section:
        lines.append("section: " + " > ".join(p.section))
    if p.role != "body":
        lines.append(f"role: {p.role}")
    lines.append(f"keys (do not cite): chunk_id={p.chunk_id} document_id={p.document_id}")
    lines.append(render_anchor(p.anchor))
    raised = [name for name, on in p.flags.model_dump().items() if on]
    if raised:
        lines.append("flags: " + ", ".join(raised))
    lines += ["", p.text]
    if p.truncated:
        lines.append(f"[… {p.remaining_chars} characters remain: {p.continuation}]")
    return "\n".join(lines)


def render_anchor(anchor: Anchor) -> str:
    """The anchor on one line: document, canonical ranges, granularity, text hash prefix."""
    ranges = ",".join(f"{start}-{end}" for start, end in anchor.ranges)
    return (f"anchor: document_id={anchor.document_id} ranges={ranges} "
            f"granularity={anchor.granularity} sha256={anchor.sha256}")


def render_trace(trace: Trace) -> str:
    return (f"trace: request {trace.request_id} · server {trace.server_version} · contract "
            f"{trace.contract_version} · corpus {trace.corpus_signature} · config "
            f"{trace.config_hash} · window {trace.window}")
