"""OCR of scanned PDFs: a library page rendered to an image and wrapped in a PDF without a text
layer is read by Tesseract into the canonical text with page regions and marked as OCR'd; without
Tesseract on the PATH (or with OCR off) it is set aside with a reason that says what to do."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from corpus.models import BlockKind, ParsedDocument
from corpus.state.layout import StateLayout, read_text_exact
from ingest.parsing import ocr
from ingest.parsing.ocr import INSTALL_STEP, OcrFailed
from ingest.passages.parse import parse_document
from ingest.sources.library import LIBRARY_ROOT
from ingest.sources.register import register_file

SOURCE = LIBRARY_ROOT / "pdf" / "pav_notes_on_the_sharpe_ratio.pdf"
PAGE = 3  # prose, two numbered section headings and a few formulas
SCAN_DPI = 200
_WORD = re.compile(r"[A-Za-z]{3,}")
needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None,
    reason="Tesseract is not on the PATH (apt-get install tesseract-ocr; scripts/setup.sh installs it as root)",
)


def _page_text() -> str:
    doc = pdfium.PdfDocument(str(SOURCE))
    try:
        return doc[PAGE - 1].get_textpage().get_text_range()
    finally:
        doc.close()


@pytest.fixture(scope="module")
def scan(tmp_path_factory) -> Path:
    """The library page as a scan: its image alone in a one-page PDF (Pillow's PDF writer)."""
    doc = pdfium.PdfDocument(str(SOURCE))
    image = doc[PAGE - 1].render(scale=SCAN_DPI / 72, grayscale=True).to_pil()
    doc.close()
    path = tmp_path_factory.mktemp("scan") / "scanned_page.pdf"
    image.save(path, resolution=SCAN_DPI)
    scanned = pdfium.PdfDocument(str(path))
    assert scanned[0].get_textpage().get_text_range().strip() == ""  # no text layer: a real scan
    scanned.close()
    return path


def _parse(tmp_path: Path, source: Path) -> tuple[ParsedDocument, str]:
    layout = StateLayout(tmp_path / "state")
    layout.ensure()
    document_id = register_file(layout, source).document_id
    assert document_id is not None
    parsed = parse_document(layout, document_id)
    return parsed, read_text_exact(layout.canonical_text(document_id))


@needs_tesseract
def test_a_scanned_page_is_read_into_the_canonical_text_with_its_regions_and_marked(scan, tmp_path):
    parsed, canonical = _parse(tmp_path, scan)
    original = {w.lower() for w in _WORD.findall(_page_text())}
    read = {w.lower() for w in _WORD.findall(canonical)}
    assert len(original & read) >= 0.9 * len(original), sorted(original - read)
    for phrase in ("considered by Gosset", "non-centrality parameter", "signal-to-noise ratio"):
        assert phrase in canonical
    record = parsed.ocr
    assert record is not None and record.engine.startswith("tesseract ") and record.pages == [1]
    assert record.mean_confidence > 50
    headings = [canonical[b.start : b.end] for b in parsed.blocks if b.kind is BlockKind.heading]
    assert any("Distribution of the Sharpe ratio" in h for h in headings), headings
    width, height = 8.27 * 72, 11.69 * 72  # the A4 page, in points
    for block in parsed.blocks:
        assert block.page_start == block.page_end == 1 and len(block.regions) == 1
        page, x0, top, x1, bottom = block.regions[0]
        assert page == 1 and 0 <= x0 < x1 <= width + 1 and 0 <= top < bottom <= height + 1
    gosset = next(b for b in parsed.blocks if "Gosset" in canonical[b.start : b.end])
    assert gosset.regions[0][2] < height / 4  # the page's first paragraph, drawn at its top


def test_without_tesseract_a_scan_is_set_aside_naming_the_install_step(scan, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no tesseract to be found
    with pytest.raises(ValueError) as caught:
        _parse(tmp_path, scan)
    prefix = "no text layer on any page (1 of its 1 page(s) hold only images: a scan)"
    assert str(caught.value) == f"{prefix}; {INSTALL_STEP}"
    assert "apt-get install tesseract-ocr" in str(caught.value)


def test_with_ocr_off_a_scan_is_set_aside_saying_so(scan, tmp_path, monkeypatch):
    monkeypatch.setenv("QUANT_RAG_OCR", "off")
    with pytest.raises(ValueError, match=r"hold only images: a scan\); OCR is off \(QUANT_RAG_OCR=off\)$"):
        _parse(tmp_path, scan)
    monkeypatch.setenv("QUANT_RAG_OCR", "sometimes")
    with pytest.raises(ValueError, match="QUANT_RAG_OCR='sometimes': choose one of auto, off"):
        _parse(tmp_path, scan)


@needs_tesseract
def test_a_scan_past_its_bounds_is_set_aside_with_the_bound(scan, tmp_path, monkeypatch):
    monkeypatch.setattr(ocr, "MAX_OCR_PAGES", 0)
    with pytest.raises(OcrFailed, match="1 scanned pages exceed the OCR cap of 0"):
        ocr.read_scan(scan, 1)
    monkeypatch.setattr(ocr, "MAX_OCR_PAGES", 1)
    monkeypatch.setattr(ocr, "PAGE_SECONDS", 0.01)
    with pytest.raises(OcrFailed, match=r"OCR of page 1 stopped after 0 s"):
        ocr.read_scan(scan, 1)


def test_a_document_with_a_text_layer_never_reaches_ocr(tmp_path, monkeypatch):
    def refuse(*_args):
        raise AssertionError("OCR called on a document with a text layer")

    monkeypatch.setattr(ocr, "read_scan", refuse)
    parsed, _ = _parse(tmp_path, SOURCE)
    assert parsed.ocr is None and parsed.text_quality is not None
