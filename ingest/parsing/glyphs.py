"""Glyphs no reader can quote: private use, unassigned, the replacement character, and the
'(cid:N)' marks pdfplumber writes for a glyph without a Unicode map; and the repair of UTF-16
surrogates a text extractor hands over as characters."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from corpus.reading.pdf_chars import REPLACEMENT, join_surrogates

CID_MARK = re.compile(r"\(cid:\d+\)")  # pdfplumber's name for a glyph without a Unicode map
_SURROGATE = re.compile("[\ud800-\udfff]")
_PAIR = re.compile("([\ud800-\udbff])([\udc00-\udfff])")


def unknown_glyph(ch: str) -> bool:
    """A character no reader can quote: private use, unassigned, or the replacement character."""
    return ch == REPLACEMENT or unicodedata.category(ch) in ("Co", "Cn")


def unknown_glyphs(text: str) -> int:
    """Unquotable characters, plus the '(cid:N)' marks pdfplumber writes in table cells."""
    return sum(n for ch, n in Counter(text).items() if unknown_glyph(ch)) + sum(1 for _ in CID_MARK.finditer(text))


def repair_surrogates(text: str) -> str:
    """Text that UTF-8 can encode: a high surrogate directly followed by a low one becomes the code
    point they encode (pdfium gives a character outside the BMP, e.g. LaTeX's mathematical italic
    '𝑌', as two UTF-16 units); a surrogate left alone becomes U+FFFD, an unknown glyph."""
    if _SURROGATE.search(text) is None:
        return text
    text = _PAIR.sub(lambda m: chr(join_surrogates(ord(m[1]), ord(m[2]))), text)
    return _SURROGATE.sub(REPLACEMENT, text)
