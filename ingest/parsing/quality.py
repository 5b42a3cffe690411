"""The measured text quality of a parse: how much of its prose the library vocabulary attests,
how many characters no reader can quote, and what the parser repaired. A document whose prose is
mostly unattested is flagged `garbled_text` (the font map is broken somewhere the glyph repair
could not see), whatever the garbled-character score says."""

from __future__ import annotations

import unicodedata

from corpus.models import BlockKind, RawBlock, TextQuality
from corpus.text.canonical import CONTROL_CHARS
from ingest.parsing.glyphs import unknown_glyphs
from ingest.parsing.vocabulary import library_vocabulary

ATTESTED_FLOOR = 0.5  # measured on the library: the 2 garbled PDFs <= 0.01, every other document >= 0.83
_PROSE = {BlockKind.paragraph, BlockKind.heading, BlockKind.list, BlockKind.caption, BlockKind.footnote}
_EDGE = ".,;:!?()[]{}\"'`*“”‘’«»<>|/\\–—-"


def _prose_words(text: str) -> list[str]:
    """Whitespace tokens without surrounding punctuation that read as words: two characters or
    more, no digit, a letter or a symbol in them (a garbled font gives symbols for letters)."""
    words = []
    for token in unicodedata.normalize("NFKC", text).split():
        word = token.strip(_EDGE).casefold()
        for suffix in ("'s", "’s"):
            word = word.removesuffix(suffix)
        if (
            len(word) >= 2
            and not any(c.isdigit() for c in word)
            and any(unicodedata.category(c)[0] == "L" or unicodedata.category(c) == "So" for c in word)
        ):
            words.append(word)
    return words


def _attested(word: str, vocabulary: frozenset[str]) -> bool:
    return all(part in vocabulary for part in word.split("-") if part) if "-" in word else word in vocabulary


def measure_quality(
    blocks: list[RawBlock], repairs: dict[str, int] | None = None, joined_words: int = 0, dropped_glyphs: int = 0
) -> TextQuality:
    """The record of `blocks` as the parser emits them (before the canonical rule drops control
    characters, which are glyphs without a Unicode map: they are counted as unknown)."""
    vocabulary = library_vocabulary()
    words = [w for b in blocks if b.kind in _PROSE for w in _prose_words(b.text)]
    attested = sum(1 for w in words if _attested(w, vocabulary))
    share = round(attested / len(words), 4) if words else 1.0
    return TextQuality(
        words=len(words),
        attested_share=share,
        unknown_glyphs=dropped_glyphs
        + sum(unknown_glyphs(b.text) + len(CONTROL_CHARS.findall(b.text)) for b in blocks),
        repairs=dict(repairs or {}),
        joined_words=joined_words,
        low_quality=share < ATTESTED_FLOOR,
    )
