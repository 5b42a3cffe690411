"""The measured text quality of a parse: how much of its prose the library vocabulary attests,
how many characters no reader can quote, and what the parser repaired. A document whose prose is
mostly unattested is flagged `garbled_text` (the font map is broken somewhere the glyph repair
could not see), whatever the garbled-character score says; so is one that loses a glyph for every
other prose word (UNKNOWN_GLYPH_CEILING)."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from corpus.models import BlockKind, RawBlock, TextQuality
from corpus.text.canonical import CONTROL_CHARS
from ingest.parsing.glyphs import unknown_glyphs
from ingest.parsing.vocabulary import library_vocabulary

# Far from both the garbled PDFs' shares and the readable ones' (docs/measurements.md, *Ingestion*).
ATTESTED_FLOOR = 0.5
# Unknown glyphs per prose word at which a text is garbled whatever its words: a font that maps no
# punctuation or bracket loses about one a word ('otherwiseit updates'); a readable text loses
# a few math pieces (docs/measurements.md, the R vignettes of Debian).
UNKNOWN_GLYPH_CEILING = 0.5
_PROSE = {BlockKind.paragraph, BlockKind.heading, BlockKind.list, BlockKind.caption, BlockKind.footnote}
_EDGE = ".,;:!?()[]{}\"'`*“”‘’«»<>|/\\–—-"
_TOKEN = re.compile(r"\S+")


def _prose_word(token: str) -> str | None:
    """A whitespace token without surrounding punctuation, when it reads as a word: two characters
    or more, no digit, a letter or a symbol in it (a garbled font gives symbols for letters)."""
    word = token.strip(_EDGE).casefold()
    for suffix in ("'s", "’s"):
        word = word.removesuffix(suffix)
    if (
        len(word) >= 2
        and not any(c.isdigit() for c in word)
        and any(unicodedata.category(c)[0] == "L" or unicodedata.category(c) == "So" for c in word)
    ):
        return word
    return None


def _tokens(blocks: list[RawBlock]) -> Counter:
    """The prose blocks' whitespace tokens (NFKC), counted: memory grows with the vocabulary, not
    with the text (a hostile source may hold millions of tokens)."""
    tokens: Counter = Counter()
    for block in blocks:
        if block.kind in _PROSE:
            tokens.update(m.group() for m in _TOKEN.finditer(unicodedata.normalize("NFKC", block.text)))
    return tokens


def _attested(word: str, vocabulary: frozenset[str]) -> bool:
    return all(part in vocabulary for part in word.split("-") if part) if "-" in word else word in vocabulary


def _count(pattern: re.Pattern, text: str) -> int:
    return sum(1 for _ in pattern.finditer(text))


def measure_quality(
    blocks: list[RawBlock],
    repairs: dict[str, int] | None = None,
    joined_words: int = 0,
    dropped_glyphs: int = 0,
    ligatures: dict[str, int] | None = None,
) -> TextQuality:
    """The record of `blocks` as the parser emits them (before the canonical rule drops control
    characters, which are glyphs without a Unicode map: they are counted as unknown)."""
    vocabulary = library_vocabulary()
    words = attested = 0
    for token, n in _tokens(blocks).items():
        if (word := _prose_word(token)) is not None:
            words += n
            attested += n * _attested(word, vocabulary)
    share = round(attested / words, 4) if words else 1.0
    unknown = dropped_glyphs + sum(unknown_glyphs(b.text) + _count(CONTROL_CHARS, b.text) for b in blocks)
    return TextQuality(
        words=words,
        attested_share=share,
        unknown_glyphs=unknown,
        repairs=dict(repairs or {}),
        joined_words=joined_words,
        ligatures=dict(ligatures or {}),
        low_quality=share < ATTESTED_FLOOR or (words > 0 and unknown / words >= UNKNOWN_GLYPH_CEILING),
    )
