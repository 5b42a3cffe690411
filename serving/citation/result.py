"""What a citation check answers (CitationResult), why a quote is not found (ReasonCode), and
the bounds on what can be checked at all: one home for each, used by the verify tools and by the
session store, which holds stored evidence to the same rules."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from serving.citation.closest import Closest

MIN_QUOTE_CHARS = 12
MAX_QUOTE_CHARS = 5_000  # longest quote accepted, in a call or an evidence session
MAX_SUPPORTS_CHARS = 2_000  # the claim a quote supports: a sentence or two of an answer
MAX_BATCH = 50  # quotes in one verify_citations call
# UTF-8 bytes of the quotes of one call: MAX_BATCH quotes of MAX_QUOTE_CHARS, 4 bytes a character
MAX_BATCH_BYTES = 1_000_000
MIN_SEGMENT_WORDS = 3  # each part around an ellipsis must say something on its own
# Why a quote is not_found, for a program (`reason` says it in words):
ReasonCode = Literal[
    "absent",  # not in the document (closest: its nearest window, if any shares words)
    "segment_absent",  # a part around an ellipsis is not in the document, or not in order
    "segment_too_short",  # a part around an ellipsis has fewer than MIN_SEGMENT_WORDS words
    "stitched",  # every part occurs in order, but too far apart to be one quote
    "budget",  # the call's matching budget ran out before an answer
    "too_short",
    "too_long",
    "invalid_id",
    "unknown_document",
    "unreadable",
    "invalid_item",
]
Status = Literal["verified", "verified_normalised", "not_found"]


class CitationResult(BaseModel):
    status: Status
    document_id: str
    quote: str
    offsets: list[tuple[int, int]] = Field(
        description=("Canonical ranges in the whole document: one, or one per ellipsis segment.")
    )
    occurrences: int
    chunk_id: str | None = Field(description="Passage holding the (first) match; get_passage reads it.")
    reason: str | None
    reason_code: ReasonCode | None = Field(description="Why not_found, as one code (see `reason`).")
    closest: Closest | None
    supports: str | None = Field(None, description="The claim this quote supports, as the caller gave it.")


def _result(document_id: str, quote: str, status: Status = "not_found", **kw: Any) -> CitationResult:
    fields = {"offsets": [], "occurrences": 0, "chunk_id": None, "reason": None, "reason_code": None, "closest": None}
    return CitationResult(status=status, document_id=document_id, quote=quote, **{**fields, **kw})


def quote_refusal(quote: object) -> tuple[str, str] | None:
    """(code, why) a quote cannot be checked at all, whatever the document (None when it can):
    the rule session_put holds evidence to as well."""
    if not isinstance(quote, str):
        return "invalid_item", "quote must be a string"
    if len(quote.strip()) < MIN_QUOTE_CHARS:
        return "too_short", (
            f"quote of {len(quote.strip())} character(s) is shorter than {MIN_QUOTE_CHARS}: too short to prove anything"
        )
    if len(quote) > MAX_QUOTE_CHARS:
        return "too_long", f"quote longer than {MAX_QUOTE_CHARS} characters: quote a shorter passage"
    return None
