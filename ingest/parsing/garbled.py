"""Garbled-text detection: a deterministic score for text extracted through a broken font map
(e.g. '❙t❛♥❞❛r❞ ❊rr♦rs' for 'Standard Errors'). The text itself is never changed."""

from __future__ import annotations

import unicodedata
from collections import Counter

# Far from both the garbled PDFs' scores and the readable ones' (docs/measurements.md, *Ingestion*).
GARBLED_THRESHOLD = 0.15
_SCRIPT_OK = ("LATIN", "GREEK", "CYRILLIC", "MATHEMATICAL", "DIGIT")


def _foreign(ch: str) -> bool:
    """A character that has no business standing in for a letter of an English/maths text:
    a pictographic symbol (dingbats, misc symbols) or a letter of another script."""
    category = unicodedata.category(ch)
    if category == "So":
        return True
    if category.startswith("L"):
        name = unicodedata.name(ch, "")
        return not name.startswith(_SCRIPT_OK)
    return False


def garbled_score(text: str) -> float:
    """Share of non-space characters that are foreign symbols or letters (0 for empty text).
    Counted per distinct character: memory does not grow with the text's length."""
    counts = Counter(text)
    total = sum(n for c, n in counts.items() if not c.isspace())
    if not total:
        return 0.0
    return round(sum(n for c, n in counts.items() if not c.isspace() and _foreign(c)) / total, 4)


def is_garbled(score: float) -> bool:
    return score >= GARBLED_THRESHOLD
