"""Small PDFs written by pdfium itself (pypdfium2), for tests that need a valid file of a given
shape: pages of Helvetica text lines, or one line whose font maps its codes to chosen Unicode text
(a ToUnicode CMap, as the fonts of LaTeX's mathematical alphabets do)."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

PAGE_SIZE = (612.0, 792.0)  # US Letter, points


def _text_object(doc, text: str, size: float, x: float, y: float):
    obj = pdfium_c.FPDFPageObj_NewTextObj(doc.raw, b"Helvetica", size)
    utf16 = (text + "\0").encode("utf-16-le")
    pdfium_c.FPDFText_SetText(obj, ctypes.cast(ctypes.c_char_p(utf16), ctypes.POINTER(pdfium_c.FPDF_WCHAR)))
    pdfium_c.FPDFPageObj_Transform(obj, 1, 0, 0, 1, x, y)
    return obj


def write_text_pdf(path: Path, pages: list[list[tuple[str, float]]], size: float = 11.0) -> Path:
    """A PDF whose page i holds the lines pages[i], each (text, distance from the page top in
    points), set in Helvetica at `size` from the left margin."""
    doc = pdfium.PdfDocument.new()
    try:
        for lines in pages:
            page = doc.new_page(*PAGE_SIZE)
            for text, top in lines:
                obj = _text_object(doc, text, size, 72.0, PAGE_SIZE[1] - top - size)
                pdfium_c.FPDFPage_InsertObject(page.raw, obj)
            pdfium_c.FPDFPage_GenerateContent(page.raw)
            page.close()
        doc.save(str(path))
    finally:
        doc.close()
    return path


def pdf_with_unicode_map(codes: bytes, to_unicode: dict[int, str]) -> bytes:
    """A one-page PDF showing the one-byte `codes` in Helvetica, whose ToUnicode CMap maps each
    code in `to_unicode` to the UTF-16BE hex given ('D835DC4C' for U+1D44C, or one lone
    surrogate), written by hand: pdfium writes no ToUnicode map of its own."""
    pairs = "\n".join(f"<{code:02X}> <{target}>" for code, target in to_unicode.items())
    cmap = (
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
        "1 begincodespacerange\n<00> <FF>\nendcodespacerange\n"
        f"{len(to_unicode)} beginbfchar\n{pairs}\nendbfchar\n"
        "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"
    ).encode()
    content = b"BT /F1 24 Tf 72 700 Td (" + codes + b") Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >>"
        b" /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(cmap), cmap),
    ]
    return pdf_of_objects(objects)


def pdf_of_objects(objects: list[bytes]) -> bytes:
    """A PDF file of the numbered object bodies (1: the catalogue), with its cross-reference table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)
