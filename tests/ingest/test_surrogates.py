"""Characters outside the BMP in a PDF's text layer: pdfium hands each over as two UTF-16
surrogates, one per char index (LaTeX's mathematical italic '𝑌' in R vignettes); they are joined
into the character, a lone one becomes U+FFFD (an unknown glyph), and the document is parsed."""

from __future__ import annotations

from pathlib import Path

import pytest
from generated_pdf import pdf_with_unicode_map

from corpus.text.canonical import assemble_canonical
from ingest.parsing import parse_source
from ingest.parsing.glyphs import REPLACEMENT, repair_surrogates
from ingest.parsing.validate import detect_format

ACTUAR_DOC = Path("/tmp/actuar/usr/lib/R/site-library/actuar/doc")  # apt-get download r-cran-actuar


@pytest.mark.parametrize(
    ("text", "repaired"),
    [
        ("plain text, σ² and 𝑌 already whole", "plain text, σ² and 𝑌 already whole"),
        ("a \ud835\udc4c b", "a 𝑌 b"),  # a pair: its code point
        ("\ud835\udc4c\ud835\udc43", "𝑌𝑃"),
        ("lone high \ud835 here", f"lone high {REPLACEMENT} here"),
        ("lone low \udc43 here", f"lone low {REPLACEMENT} here"),
        ("\udc4c\ud835", REPLACEMENT * 2),  # low before high: no pair
        ("\ud835\ud835\udc4c", f"{REPLACEMENT}𝑌"),  # the second high pairs with the low
        ("end \ud835", f"end {REPLACEMENT}"),
    ],
)
def test_surrogates_are_joined_or_replaced(text, repaired):
    out = repair_surrogates(text)
    assert out == repaired
    out.encode("utf-8")  # what the canonical text's writer does


def test_the_text_of_a_clean_string_is_the_same_object():
    text = "nothing to repair"
    assert repair_surrogates(text) is text


def test_a_pdf_whose_font_maps_glyphs_to_surrogates_is_parsed(tmp_path):
    """A font whose ToUnicode map gives 'A' the pair of U+1D44C, 'B' a lone high surrogate and 'C'
    a lone low one: pdfium hands over the same UTF-16 units as for the actuar vignettes."""
    path = tmp_path / "math_italic.pdf"
    path.write_bytes(pdf_with_unicode_map(b"xAy Bz Cd BC", {0x41: "D835DC4C", 0x42: "D835", 0x43: "DC43"}))
    output = parse_source(path, detect_format(path))
    canonical, _ = assemble_canonical(output.raw_blocks)
    canonical.encode("utf-8")
    assert "x𝑌y" in canonical
    assert f"{REPLACEMENT}z {REPLACEMENT}d" in canonical  # each half alone: an unknown glyph
    assert f"{REPLACEMENT}d 𝑃" in canonical  # a pair split over two glyphs' boxes is still one character
    assert canonical.count(REPLACEMENT) == 2
    assert output.quality is not None and output.quality.unknown_glyphs == 2


@pytest.mark.parametrize(
    "name", ["coverage.pdf", "credibility.pdf", "distributions.pdf", "modeling.pdf", "risk.pdf", "simulation.pdf"]
)
def test_the_actuar_vignettes_are_parsed(name):
    """The six R vignettes that crashed the parser (UnicodeEncodeError: surrogates not allowed)."""
    path = ACTUAR_DOC / name
    if not path.exists():
        pytest.skip(f"{path} absent (apt-get download r-cran-actuar; dpkg-deb -x it under /tmp/actuar)")
    output = parse_source(path, detect_format(path))
    canonical, _ = assemble_canonical(output.raw_blocks)
    canonical.encode("utf-8")
    assert len(canonical) > 2000 and any(0x1D400 <= ord(c) <= 0x1D7FF for c in canonical)
    assert output.quality is not None and output.quality.unknown_glyphs == 0
