"""The served forms of corpus records: a passage within a window (with its cite, anchor and
flags), a document's bibliographic entry, a cite; the models are serving.answer.outputs."""

from __future__ import annotations

from corpus.models import Passage
from corpus.reading.reader import CorpusReader
from serving.answer.contract import anchor_for, cite_for, quality_flags, serve_text
from serving.answer.outputs import Cite, DocumentOut, PassageOut


def cite_of(reader: CorpusReader, document_id: str, page_start: int | None = None, page_end: int | None = None) -> Cite:
    entry = reader.documents[document_id]
    return cite_for(entry.authors, entry.year, reader.title(document_id), page_start, page_end)


def document_out(reader: CorpusReader, document_id: str) -> DocumentOut:
    entry = reader.documents[document_id]
    venue = entry.metadata.venue.value
    return DocumentOut(
        document_id=document_id,
        title=reader.title(document_id),
        authors=entry.authors,
        year=entry.year,
        venue=venue if isinstance(venue, str) else None,
        cite=cite_of(reader, document_id),
        format=entry.source.format,
        passages=len(reader.by_document.get(document_id, [])),
    )


def passage_out(
    reader: CorpusReader, passage: Passage, window: int, *, score: float | None, offset: int = 0
) -> PassageOut:
    """Serve `passage` from `offset` within `window`, with its cite, anchor and flags."""
    served = serve_text(passage.text, window, passage.chunk_id, offset)
    sha = reader.documents[passage.document_id].parsed.canonical_sha256
    return PassageOut(
        chunk_id=passage.chunk_id,
        document_id=passage.document_id,
        score=score,
        cite=cite_of(reader, passage.document_id, passage.page_start, passage.page_end),
        section=list(passage.section),
        role=passage.role,
        text=served.text,
        anchor=anchor_for(passage, sha),
        flags=quality_flags(served.text, served.truncated, passage.garbled_text),
        truncated=served.truncated,
        remaining_chars=served.remaining_chars,
        offset=served.offset,
        next_offset=served.next_offset,
        continuation=served.continuation,
    )
