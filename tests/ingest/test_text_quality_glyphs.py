"""A text that loses a glyph for every other prose word (a font mapping no punctuation or bracket:
'otherwiseit updates', '\\x16lhuh\\x17') is flagged garbled, however many of its words are attested;
a text losing a few math pieces is not."""

from __future__ import annotations

from corpus.models import BlockKind, RawBlock
from ingest.parsing.quality import UNKNOWN_GLYPH_CEILING, measure_quality


def _paragraph(text: str) -> RawBlock:
    return RawBlock(kind=BlockKind.paragraph, text=text, page_start=1, page_end=1)


def test_unknown_glyphs_for_half_the_words_make_a_garbled_text():
    words = "the relative tolerance on optimality and feasibility of the solution".split()
    lost = " ".join(w + (" \x16" if i % 2 else "") for i, w in enumerate(words))
    quality = measure_quality([_paragraph(lost)])
    assert quality.attested_share >= 0.8 and quality.unknown_glyphs / quality.words >= UNKNOWN_GLYPH_CEILING
    assert quality.low_quality
    few = measure_quality([_paragraph(" ".join(words) + " \x16")])
    assert few.unknown_glyphs == 1 and not few.low_quality
