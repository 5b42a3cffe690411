"""TeX's accents over letters it has no glyph for reach pdfium as a spacing accent before the
letter ('B¨uhlmann'): read as the precomposed letter where Unicode has one, left as read elsewhere."""

from __future__ import annotations

import pytest
from generated_pdf import pdf_with_unicode_map

from corpus.text.canonical import assemble_canonical
from ingest.parsing import parse_source
from ingest.parsing.accents import compose_accents


@pytest.mark.parametrize(
    ("read", "composed"),
    [
        ("B\u00a8uhlmann", "Bühlmann"),
        ("H\u00b4ajek", "Hájek"),
        ("Fran\u00b8cois", "François"),  # the cedilla comes first too
        ("St\u02c7r\u00edte\u017e", "Střítež"),
        ("na\u00a8\u0131ve", "naïve"),  # the dotless i an accent sits on
        ("\u02c6\u03b2 and \u02dcx", "\u02c6\u03b2 and \u02dcx"),  # no precomposed letter: as read
        ("Zurich \u00a8 and x \u00b8 = y", "Zurich \u00a8 and x \u00b8 = y"),  # an accent beside no letter
        ("`r 1+1`", "`r 1+1`"),  # the ASCII grave is code's
    ],
)
def test_a_spacing_accent_before_its_letter_is_composed(read, composed):
    assert compose_accents(read) == composed


def test_a_pdfs_detached_accent_is_composed_in_the_canonical_text(tmp_path):
    path = tmp_path / "accent.pdf"
    path.write_bytes(pdf_with_unicode_map(b"Peter B\x01uhlmann and Jaroslav H\x02ajek", {0x01: "00A8", 0x02: "00B4"}))
    canonical, _ = assemble_canonical(parse_source(path, "pdf").raw_blocks)
    assert canonical == "Peter Bühlmann and Jaroslav Hájek"


def test_the_lines_compose_only_what_a_text_font_draws():
    """In a formula the accent follows its base in a math font ('µˆi': a hatted mu, subscript i);
    a listing's caret is code: both stay as read."""
    from ingest.parsing.pdf_lines import _Builder

    def line(chars):
        builder = _Builder()
        for ch, font in chars:
            builder.add(ch, (0.0, 1.0, 0.0, 1.0), 10.0, font)
        built = builder.build(1, 100.0)
        assert built is not None
        return built.text

    assert line([("B", "CMR10"), ("\u00a8", "CMR10"), ("u", "CMR10"), ("h", "CMR10")]) == "Büh"
    assert line([("\u00b5", "CMMI10"), ("\u02c6", "CMR10"), ("i", "CMMI7")]) == "\u00b5\u02c6i"
    assert line([("s", "CMTT10"), ("\u02c6", "CMTT10"), ("a", "CMTT10")]) == "s\u02c6a"
