"""The characters of a pdfium text page as code points, shared by the parser's lines
(ingest/parsing/pdf_lines.py) and the page lines a rendered region is matched by (page_images).

pdfium gives one UTF-16 unit per character index, so a character outside the Basic Multilingual
Plane (the mathematical italic '𝑌' of a LaTeX font) comes as a high and a low surrogate at two
indexes, each with the glyph's box. `code_points` joins such a pair into its code point (at the
first index); a surrogate without its other half becomes U+FFFD, an unknown glyph.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

REPLACEMENT = "\ufffd"
HIGH_SURROGATES = range(0xD800, 0xDC00)
LOW_SURROGATES = range(0xDC00, 0xE000)


def join_surrogates(high: int, low: int) -> int:
    """The code point a UTF-16 surrogate pair encodes (high in HIGH_SURROGATES, low in LOW_SURROGATES)."""
    return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)


def code_points(textpage: Any) -> Iterator[tuple[int, int]]:
    """(char index, code point) of a pdfium text page (its raw handle), surrogate pairs joined."""
    import pypdfium2.raw as pdfium_c

    count = pdfium_c.FPDFText_CountChars(textpage)
    k = 0
    while k < count:
        code = pdfium_c.FPDFText_GetUnicode(textpage, k)
        if code in HIGH_SURROGATES and k + 1 < count:
            low = pdfium_c.FPDFText_GetUnicode(textpage, k + 1)
            if low in LOW_SURROGATES:
                yield k, join_surrogates(code, low)
                k += 2
                continue
        yield k, ord(REPLACEMENT) if code in HIGH_SURROGATES or code in LOW_SURROGATES else code
        k += 1
