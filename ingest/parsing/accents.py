"""Accents a PDF's text layer hands over as characters of their own. TeX sets an accented letter
it has no glyph for ('\\"u' in OT1) as the accent's glyph placed over the letter's; pdfium reads
the spacing accent then the letter ('B¨uhlmann', 'H´ajek', 'Fran¸cois'), which splits the word
for search and quotation. Such a pair becomes the precomposed letter
('Bühlmann') when Unicode has one; any other pair stays as read (a hat over a Greek letter in a
formula, 'ˆβ', has no precomposed form)."""

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


def _composed(letter: str, mark: str, found: str) -> str:
    # TeX's dotless i under an accent ('\\"{\\i}') is the i the accent sits on
    composed = unicodedata.normalize("NFC", letter.replace("\u0131", "i") + mark)
    return composed if len(composed) == 1 else found


def compose_accents(text: str) -> str:
    """`text` with each spacing accent beside its letter read as the accented letter (module)."""
    if not any(ch in COMBINING for ch in text):
        return text
    return _PAIR.sub(lambda m: _composed(m[2], COMBINING[m[1]], m[0]), text)
