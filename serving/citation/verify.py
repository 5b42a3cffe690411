"""Citation verification without a language model (docs/DESIGN.md §5).

A quote is `verified` when it is a raw substring of the canonical text (tried before any reading
of its dots as an ellipsis), `verified_normalised` when it matches after corpus.text.normalise
(serving.citation.text), else `not_found` with the closest window of the document by word-level
alignment (serving.citation.closest), which names the chunk_id and passage-relative offset
get_passage reads it at. A quote with an ellipsis is checked as ordered segments that join only
within one passage or at most MAX_ELLIPSIS_GAP characters apart (serving.citation.segments);
otherwise it is `not_found` as `stitched`; parts that meet around the document's own dots are one
`verified_normalised` span, not an elision. Normalised documents are cached (LRU, bounded in
characters) so a warm check costs a few milliseconds. The closest-window search has a bounded cost
whatever the input: a quote it could not finish within the call's budget is `not_found` with the
reason "closest search stopped at budget".
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from corpus.ids import InvalidIdError, validate_chunk_id, validate_document_id
from corpus.reading.reader import CorpusReader
from serving.citation.closest import BUDGET_REASON, Budget, OverBudget, closest_window
from serving.citation.places import covering_chunk
from serving.citation.repairs import read_through_repairs
from serving.citation.result import (
    MAX_BATCH,
    MAX_BATCH_BYTES,
    MAX_QUOTE_CHARS,
    MAX_SUPPORTS_CHARS,
    MIN_QUOTE_CHARS,
    MIN_SEGMENT_WORDS,
    CitationResult,
    _result,
    quote_refusal,
)
from serving.citation.segments import MAX_ELLIPSIS_GAP, match_segments
from serving.citation.text import DOCUMENTS, ELLIPSIS_RE, NormalisedDocument, find_all, match_whole

__all__ = [
    "BUDGET_REASON",
    "Budget",
    "CitationResult",
    "MAX_BATCH",
    "MAX_BATCH_BYTES",
    "MAX_ELLIPSIS_GAP",
    "MAX_QUOTE_CHARS",
    "MAX_SUPPORTS_CHARS",
    "MIN_QUOTE_CHARS",
    "quote_refusal",
    "verify_batch",
    "verify_quote",
]


def _hint_ranges(reader: CorpusReader, document_id: str, chunk_id: str | None) -> list[tuple[int, int]]:
    passage = reader.passages.get(chunk_id) if chunk_id else None
    return list(passage.ranges) if passage and passage.document_id == document_id else []


def _pick(hits: list[tuple[int, int]], hint: list[tuple[int, int]]) -> tuple[int, int]:
    """First occurrence inside the hinted passage, else the first occurrence."""
    return next((h for h in hits if any(s <= h[0] and h[1] <= e for s, e in hint)), hits[0])


def _verify(
    reader: CorpusReader, doc: NormalisedDocument, document_id: str, quote: str, chunk_id: str | None, budget: Budget
) -> CitationResult:
    """The raw match always runs (a substring search); normalised matching and the closest search
    only while the call's budget lasts."""
    hits = find_all(doc.text, quote.strip())
    if not hits:
        try:
            budget.spend()
            return _verify_normalised(reader, doc, document_id, quote, chunk_id, budget)
        except OverBudget:
            return _result(
                document_id,
                quote,
                reason_code="budget",
                reason=(
                    f"not a raw substring; normalised match not tried: {BUDGET_REASON} "
                    f"({budget.seconds:g} s per call); check fewer or shorter quotes per call"
                ),
            )
    s, e = _pick([(h, h + len(quote.strip())) for h in hits], _hint_ranges(reader, document_id, chunk_id))
    return _result(
        document_id,
        quote,
        "verified",
        offsets=[(s, e)],
        occurrences=len(hits),
        chunk_id=covering_chunk(reader, document_id, s, e, chunk_id),
    )


def _verify_normalised(
    reader: CorpusReader, doc: NormalisedDocument, document_id: str, quote: str, chunk_id: str | None, budget: Budget
) -> CitationResult:
    text = quote.strip()
    matched = match_whole(doc, text)
    segments = [s.strip() for s in ELLIPSIS_RE.split(text) if s.strip()]
    failed_segment = None
    if matched is None and len(segments) > 1:
        placed = match_segments(doc, segments, [p.ranges for p in reader.by_document.get(document_id, [])])
        if placed.literal is not None:  # the dots are the document's own: one span, not an elision
            s, e = placed.literal
            chunk = covering_chunk(reader, document_id, s, e, chunk_id)
            return _result(document_id, quote, "verified_normalised", offsets=[(s, e)], occurrences=1, chunk_id=chunk)
        short = [s for s in segments if len(s.split()) < MIN_SEGMENT_WORDS]
        if short:
            return _result(
                document_id,
                quote,
                reason_code="segment_too_short",
                reason=(
                    f"each part around an ellipsis needs at least {MIN_SEGMENT_WORDS} words; too short: {short[0]!r}"
                ),
            )
        if placed.stitched:
            return _stitched(reader, document_id, quote, placed.stitched)
        if placed.ranges is not None:
            ranges = placed.ranges
            chunk = covering_chunk(reader, document_id, ranges[0][0], ranges[-1][1], chunk_id)
            return _result(
                document_id,
                quote,
                "verified" if placed.raw else "verified_normalised",
                offsets=ranges,
                occurrences=1,
                chunk_id=chunk,
            )
        failed_segment = placed.failed
    if matched is not None:
        status, hits = matched
        s, e = _pick(hits, _hint_ranges(reader, document_id, chunk_id))
        return _result(
            document_id,
            quote,
            status,
            offsets=[(s, e)],
            occurrences=len(hits),
            chunk_id=covering_chunk(reader, document_id, s, e, chunk_id),
        )
    probe = segments[failed_segment] if failed_segment is not None else text
    where = (
        f"ellipsis segment {failed_segment + 1} of {len(segments)} not found in order"
        if failed_segment is not None
        else "quote not found in the document"
    )
    code = "segment_absent" if failed_segment is not None else "absent"
    try:
        budget.spend()
        closest = closest_window(doc, reader, document_id, probe, chunk_id, budget)
    except OverBudget:
        return _result(
            document_id,
            quote,
            reason_code="budget",
            reason=(f"{where}; {BUDGET_REASON} ({budget.seconds:g} s per call): no closest passage given"),
        )
    if closest is None:
        reason = f"{where}; no similar passage"
    elif closest.word_edits == 0:
        reason = f"{where}; the closest passage differs only in punctuation or symbols"
    else:
        reason = f"{where}; the closest passage differs by {closest.word_edits} word(s)"
    return _result(document_id, quote, reason=reason, reason_code=code, closest=closest)


def _stitched(reader: CorpusReader, document_id: str, quote: str, ranges: list[tuple[int, int]]) -> CitationResult:
    """Every part occurs, in order, but not as one quote: say where each part is."""
    gap = max(b[0] - a[1] for a, b in zip(ranges, ranges[1:]))
    places = "; ".join(
        f"part {i + 1} in {covering_chunk(reader, document_id, s, e, None)} at {s}" for i, (s, e) in enumerate(ranges)
    )
    return _result(
        document_id,
        quote,
        reason_code="stitched",
        reason=(
            f"stitched: each part occurs, in order, but up to {gap:,} characters apart and not in one "
            f"passage; an ellipsis joins parts within one passage or at most {MAX_ELLIPSIS_GAP} "
            f"characters apart ({places}); cite the parts as separate quotes"
        ),
    )


def _refusal(document_id: object, quote: object, chunk_id: object) -> tuple[str, str] | None:
    """(code, why) a request cannot be checked at all (None when it can)."""
    try:
        validate_document_id(document_id)
        if chunk_id is not None:
            validate_chunk_id(chunk_id)
    except InvalidIdError as exc:
        return "invalid_id", str(exc)
    return quote_refusal(quote)


def _load(reader: CorpusReader, document_id: str) -> NormalisedDocument | tuple[str, str]:
    if document_id not in reader.documents:
        return "unknown_document", f"unknown document_id {document_id!r}: not in the served corpus"
    try:
        return DOCUMENTS.get(document_id, reader.canonical_text(document_id))
    except OSError as exc:
        return "unreadable", f"canonical text of {document_id} unreadable: {exc.__class__.__name__}"


def _read_through_repairs(reader: CorpusReader, doc: NormalisedDocument, document_id: str, quote: str) -> str:
    """The quote read through the document's recorded repairs (serving.citation.repairs): copied from
    the PDF through its broken font map ('Ąnancial') or from a copy made before a ligature was
    restored ('coecient'), it reads as the repaired canonical text does ('financial', 'coefficient')."""
    return read_through_repairs(quote, reader.documents[document_id].parsed.text_quality, doc)


def verify_quote(
    reader: CorpusReader, document_id: str, quote: str, chunk_id: str | None = None, budget: Budget | None = None
) -> CitationResult:
    """Check one quote against a document's canonical text."""
    item = {"document_id": document_id, "quote": quote, "chunk_id": chunk_id}
    return verify_batch(reader, [item], budget)[0]


def verify_batch(reader: CorpusReader, items: list[dict], budget: Budget | None = None) -> list[CitationResult]:
    """Check many quotes, in order; each document is read and normalised once. The closest-passage
    searches of all the quotes share one budget (a fresh CLOSEST_BUDGET_S one by default)."""
    budget = budget or Budget()
    docs: dict[str, NormalisedDocument | tuple[str, str]] = {}
    results = []
    for item in items:
        item = item.model_dump() if isinstance(item, BaseModel) else item
        if not isinstance(item, Mapping):
            results.append(
                _result(
                    "",
                    "",
                    reason_code="invalid_item",
                    reason="each item must be an object {document_id, quote, chunk_id?}",
                )
            )
            continue
        document_id, quote, chunk_id = item.get("document_id"), item.get("quote"), item.get("chunk_id")
        supports = item.get("supports") if isinstance(item.get("supports"), str) else None
        refusal = _refusal(document_id, quote, chunk_id)
        if refusal:
            results.append(
                _result(
                    str(document_id or ""),
                    str(quote or ""),
                    reason_code=refusal[0],
                    reason=refusal[1],
                    supports=supports,
                )
            )
            continue
        # _refusal found both well-formed strings (chunk_id, when given, too)
        assert isinstance(document_id, str) and isinstance(quote, str)
        if document_id not in docs:
            docs[document_id] = _load(reader, document_id)
        doc = docs[document_id]
        if isinstance(doc, tuple):
            result = _result(document_id, quote, reason_code=doc[0], reason=doc[1])
        else:
            repaired = _read_through_repairs(reader, doc, document_id, quote)
            result = _verify(reader, doc, document_id, repaired, chunk_id, budget)
            if repaired != quote and result.status == "verified":  # not the raw text any more
                result = result.model_copy(update={"status": "verified_normalised"})
        results.append(result.model_copy(update={"supports": supports, "quote": quote}))
    return results
