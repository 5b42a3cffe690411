"""Where a canonical range of a document is read: the passage covering it, and the chunk_id and
passage-relative offset that get_passage takes (a document's canonical offsets are not those)."""

from __future__ import annotations

from corpus.reading.reader import CorpusReader


def covering_chunk(reader: CorpusReader, document_id: str, start: int, end: int, preferred: str | None) -> str | None:
    """The passage whose canonical ranges overlap [start, end) the most (the hint wins ties)."""
    best, best_overlap = None, 0
    for passage in reader.by_document.get(document_id, []):
        overlap = sum(max(0, min(e, end) - max(s, start)) for s, e in passage.ranges)
        if overlap > best_overlap or (overlap and overlap == best_overlap and passage.chunk_id == preferred):
            best, best_overlap = passage.chunk_id, overlap
    return best


def passage_place(
    reader: CorpusReader, document_id: str, start: int, text: str, hint: str | None
) -> tuple[str | None, int | None, str | None]:
    """(chunk_id, passage-relative offset, next chunk_id when it runs on) of canonical `text` at
    `start`: what get_passage(chunk_id, offset) reads from. A passage cut verbatim from the
    canonical text holds it at `start` minus its own start; a table piece that repeats its header
    (granularity "block") is searched. The hinted passage wins among several."""
    passages = reader.by_document.get(document_id, [])
    found: list[tuple[str, int, str | None]] = []
    for i, passage in enumerate(passages):
        begin = next((s for s, e in passage.ranges if s <= start < e), None)
        if begin is None:
            continue
        if passage.granularity == "exact":
            at = start - begin
            held = passage.text[at : at + len(text)]
            if held == text:
                found.append((passage.chunk_id, at, None))
            elif held and text.startswith(held) and i + 1 < len(passages):
                found.append((passage.chunk_id, at, passages[i + 1].chunk_id))
        elif (at := passage.text.find(text)) >= 0:
            found.append((passage.chunk_id, at, None))
    if not found:
        return covering_chunk(reader, document_id, start, start + len(text), hint), None, None
    return next((f for f in found if f[0] == hint), found[0])
