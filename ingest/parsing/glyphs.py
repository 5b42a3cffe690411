"""Glyphs no reader can quote: private use, unassigned, the replacement character, and the
'(cid:N)' marks pdfplumber writes for a glyph without a Unicode map."""

from __future__ import annotations

import re
import unicodedata

REPLACEMENT = "\ufffd"
CID_MARK = re.compile(r"\(cid:\d+\)")  # pdfplumber's name for a glyph without a Unicode map


def unknown_glyph(ch: str) -> bool:
    """A character no reader can quote: private use, unassigned, or the replacement character."""
    return ch == REPLACEMENT or unicodedata.category(ch) in ("Co", "Cn")


def unknown_glyphs(text: str) -> int:
    """Unquotable characters, plus the '(cid:N)' marks pdfplumber writes in table cells."""
    return sum(1 for ch in text if unknown_glyph(ch)) + len(CID_MARK.findall(text))
