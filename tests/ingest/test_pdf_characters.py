"""The characters pdfium hands the parser's lines (ingest/parsing/pdf_lines.py) that are not what
they seem: a glyph whose font maps it to 0x0D or 0x0A (OT1's fl ligature and Omega) is no line
break, and a Type 3 font whose FontMatrix carries the scale (dvips' bitmap fonts) reports a size
of a tenth of a point. Shown on PDFs written here; the page images read the same characters."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
from generated_pdf import pdf_of_objects, pdf_with_unicode_map

from corpus.models import BlockKind
from corpus.reading.page_images import page_lines as image_lines
from corpus.text.canonical import assemble_canonical
from ingest.parsing import parse_source
from ingest.parsing.pdf_lines import GLYPH_STAND_INS, page_lines


def _lines(path: Path):
    doc = pdfium.PdfDocument(str(path))
    try:
        return page_lines(doc[0], 1)
    finally:
        doc.close()


def pdf_with_type3_font(lines: list[str], size: float = 0.12, x_height: int = 45) -> bytes:
    """A one-page PDF whose lines are set in a Type 3 font drawn as boxes, in units of which the
    FontMatrix makes one a text-space unit (as dvips sets TeX's bitmap fonts, one unit a pixel):
    `size` is tiny, the glyphs are not (lower-case letters `x_height` units high)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    proc = f"60 0 0 0 50 {x_height} d1 0 0 50 {x_height} re f".encode()
    text = b"".join(b"(" + line.encode() + b") Tj 0 -13 Td " for line in lines)
    content = b"BT /F1 %.2f Tf 72 700 Td " % size + text + b"ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >>"
        b" /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 60 100] /FontMatrix [1 0 0 1 0 0] /CharProcs << "
        + b" ".join(b"/%s 6 0 R" % c.encode() for c in letters)
        + b" /space 7 0 R >> /Encoding << /Type /Encoding "
        b"/Differences [32 /space 97 " + b" ".join(b"/" + c.encode() for c in letters) + b"] >> /FirstChar 32 "
        b"/LastChar 122 /Widths [" + b" ".join(b"60" for _ in range(32, 123)) + b"] /Resources << >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(proc), proc),
        b"<< /Length 11 >>\nstream\n60 0 0 0 0 0 d1\nendstream",
    ]
    return pdf_of_objects(objects)


def test_a_glyph_at_0x0d_is_kept_and_read_as_ots_fl_ligature(tmp_path):
    """OT1 puts fl at 0x0D; pdfium hands the code over as a carriage return, which ended nothing
    but was dropped ('uctuation'). Beside a letter it is kept under its stand-in and restored."""
    path = tmp_path / "ot1.pdf"
    path.write_bytes(pdf_with_unicode_map(b"the \x01uctuation test, a \x01 b, x\x02y", {0x01: "000D", 0x02: "000A"}))
    lines = _lines(path)
    assert [ln.text for ln in lines] == [f"the {GLYPH_STAND_INS[0x0D]}uctuation test, a  b, x{GLYPH_STAND_INS[0x0A]}y"]
    output = parse_source(path, "pdf")
    canonical, _ = assemble_canonical(output.raw_blocks)
    assert canonical == "the fluctuation test, a  b, xy"  # one line: the glyph at 0x0A broke none
    assert output.quality is not None
    assert output.quality.repairs == {f"{GLYPH_STAND_INS[0x0D]}→fl": 1}
    assert output.quality.ligatures == {"uctuation→fluctuation": 1}
    assert output.quality.unknown_glyphs == 1  # the glyph at 0x0A, dropped as the control it stands for


def test_a_type3_font_scaled_by_its_matrix_gets_the_size_its_glyphs_show(tmp_path):
    path = tmp_path / "type3.pdf"
    text = ["some words set in a bitmap font of tex", "and more words on a second line here", "the third line"]
    path.write_bytes(pdf_with_type3_font(text))
    assert [round(ln.size, 1) for ln in _lines(path)] == [10.8] * 3  # 45 units x 0.12 / X_BOX_PER_EM
    output = parse_source(path, "pdf")
    assert [b.kind for b in output.raw_blocks] == [BlockKind.paragraph]  # not three headings over a body of 0 pt
    assert output.raw_blocks[0].text == " ".join(text)


def test_the_page_images_read_a_character_outside_the_bmp_whole(tmp_path):
    """pdfium's two UTF-16 units of 'Y' (U+1D44C) are one character on the page images' lines too,
    a math character as the parser reads it."""
    path = tmp_path / "math_italic.pdf"
    path.write_bytes(pdf_with_unicode_map(b"xAy", {0x41: "D835DC4C"}))
    (line,) = image_lines(path, 1)
    assert line.text == "x\U0001d44cy" and line.math
