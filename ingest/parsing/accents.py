"""Accents a PDF's text layer hands over as characters of their own. TeX sets an accented letter
it has no glyph for ('\\"u' in OT1) as the accent's glyph placed over the letter's; pdfium reads
the spacing accent then the letter ('B¨uhlmann', 'H´ajek', 'Fran¸cois'), which splits the word
for search and quotation. Such a pair becomes the precomposed letter ('Bühlmann') when Unicode
has one; any other pair stays as read ('ˆβ' has no precomposed form). In mathematics the accent
follows its base ('µˆi': a hatted mu, subscript i), so the parser composes only what a text font
draws (pdf_lines)."""

from __future__ import annotations

import re
import unicodedata

# Spacing accent -> its combining mark. The grave accent's ASCII form '`' is left out: code and
# Markdown write it.
COMBINING = {
    "\u00a8": "\u0308",  # diaeresis
    "\u00b4": "\u0301",  # acute
    "\u02c6": "\u0302",  # circumflex
    "\u02dc": "\u0303",  # tilde
    "\u00af": "\u0304",  # macron
    "\u02d8": "\u0306",  # breve
    "\u02d9": "\u0307",  # dot above
    "\u02da": "\u030a",  # ring above
    "\u02dd": "\u030b",  # double acute
    "\u02c7": "\u030c",  # caron
    "\u00b8": "\u0327",  # cedilla
}
_PAIR = re.compile(f"([{''.join(COMBINING)}])([A-Za-z\u0131])")


def compose(accent: str, letter: str) -> str | None:
    """The precomposed letter a spacing accent before `letter` makes, or None (no accent, no
    ASCII letter, or no precomposed form). TeX's dotless i under an accent is the i it sits on."""
    if accent not in COMBINING or not _PAIR.fullmatch(accent + letter):
        return None
    composed = unicodedata.normalize("NFC", letter.replace("\u0131", "i") + COMBINING[accent])
    return composed if len(composed) == 1 else None


def compose_accents(text: str) -> str:
    """`text` with each spacing accent before its letter read as the accented letter (module); the
    parser's lines decide by the characters' fonts as well (pdf_lines: never in mathematics)."""
    if not any(ch in COMBINING for ch in text):
        return text
    return _PAIR.sub(lambda m: compose(m[1], m[2]) or m[0], text)
