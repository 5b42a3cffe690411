"""A quote read through a document's recorded repairs (docs/DESIGN.md §5): what a reader copied from
the PDF through its broken font map, or from a copy of the text made before a repair, reads as the
repaired canonical text does.

* Glyph repairs (TextQuality.quote_table): a character the font maps to a wrong code point is
  translated wherever it stands ('Ąnancial' -> 'financial', '\\x1crst' -> 'first').
* Restored ligatures (TextQuality.ligature_table): a word that lost its ligature glyph ('coecient',
  'rst') reads as the word restored in the canonical text ('coefficient', 'first'), unless the
  canonical text still writes that word as it is (its own 't' or 'ow' stays a 't', an 'ow').
"""

from __future__ import annotations

import re

from corpus.models import TextQuality
from serving.citation.text import NormalisedDocument

_WORD = re.compile(r"[^\W\d_]+")


def read_ligatures(quote: str, table: dict[str, str], doc: NormalisedDocument) -> str:
    """`quote` with each whole word that `table` restored (case-folded keys) read as restored, when
    the document holds no such word itself; the word's first letter keeps its case."""
    if not table:
        return quote

    def read(m: re.Match) -> str:
        word = m.group()
        now = table.get(word.casefold())
        if now is None or word.casefold() in doc.positions:
            return word
        return now[:1].upper() + now[1:] if word[:1].isupper() else now

    return _WORD.sub(read, quote)


def read_through_repairs(quote: str, quality: TextQuality | None, doc: NormalisedDocument) -> str:
    """`quote` through the document's glyph repairs, then its restored ligatures."""
    if quality is None:
        return quote
    return read_ligatures(quote.translate(quality.quote_table()), quality.ligature_table(), doc)
