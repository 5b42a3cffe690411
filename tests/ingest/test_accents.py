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
