"""OCR of scanned PDFs: the pages of a PDF without a text layer, rendered by pdfium and read by
Tesseract (found on the PATH at run time, called as a program), into blocks with page regions.

Only a document with no readable character on any page comes here (ingest.parsing.parse_source),
so a document with a text layer is parsed as before whatever is installed. Each page is bounded
(pixels rendered, seconds read) and so is the document (pages, seconds), so a hostile scan is set
aside with its reason instead of stalling the batch.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from corpus.config import OCR_ENV, ocr_setting
from corpus.models import OcrRecord, RawBlock
from ingest.parsing.ocr_blocks import Word, blocks_of, parse_tsv

TESSERACT = "tesseract"
INSTALL_STEP = "install Tesseract (apt-get install tesseract-ocr) to OCR scanned pages"
DPI = 300  # Tesseract reads body text best at 300 dpi
MAX_PIXELS = 20_000_000  # a larger page is rendered at a lower resolution (A4 at 300 dpi: 8.7 M; A3: 17.4 M)
MAX_OCR_PAGES = 200  # a scan with more pages is set aside rather than read for an hour
PAGE_SECONDS = 60.0  # one page's bound (a 300-dpi page of prose takes a few seconds)
BASE_SECONDS, SECONDS_PER_PAGE = 30.0, 15.0  # the document's bound, as for a text-layer parse


class OcrFailed(ValueError):
    """A scan OCR could not read within its bounds; the document is set aside with this reason."""


@dataclass
class ScanRead:
    """What OCR made of a scanned PDF: its blocks and record, or why it read nothing."""

    blocks: list[RawBlock]
    record: OcrRecord | None = None
    reason: str | None = None  # set when there are no blocks: for the set-aside list


@lru_cache(maxsize=4)
def _engine_version(binary: str) -> str:
    done = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=PAGE_SECONDS, check=False)
    lines = (done.stdout or done.stderr).splitlines()
    return lines[0].strip() if lines else TESSERACT  # 'tesseract 5.3.0'


def tesseract_binary() -> str | None:
    """Tesseract's path when OCR is on ("auto") and it is on the PATH, else None."""
    return shutil.which(TESSERACT) if ocr_setting() == "auto" else None


def scanned_pages(doc: pdfium.PdfDocument) -> list[int]:
    """The 1-based pages that hold an image (a scan); a page without one has nothing to read."""
    found = []
    for index in range(len(doc)):
        page = doc[index]
        if next(page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=4), None) is not None:
            found.append(index + 1)
        page.close()
    return found


def _read_page(binary: str, page: pdfium.PdfPage, number: int, seconds: float) -> list[Word]:
    """The words Tesseract reads on one page, with boxes in PDF points from the top-left corner."""
    width, height = page.get_size()
    scale = min(DPI / 72, (MAX_PIXELS / max(width * height, 1.0)) ** 0.5)
    image = page.render(scale=scale, grayscale=True).to_pil()
    png = io.BytesIO()
    image.save(png, format="PNG")
    command = [binary, "stdin", "stdout", "--dpi", str(round(72 * scale)), "tsv"]
    # one thread: the machine's cores are shared, and the output does not depend on scheduling
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    try:
        done = subprocess.run(command, input=png.getvalue(), capture_output=True, timeout=seconds, env=env, check=False)
    except subprocess.TimeoutExpired as exc:
        raise OcrFailed(f"OCR of page {number} stopped after {seconds:.0f} s") from exc
    if done.returncode != 0:
        error = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise OcrFailed(f"Tesseract failed on page {number} (exit {done.returncode}: {error[0]})")
    return parse_tsv(done.stdout.decode("utf-8", "replace"), number, scale)


def read_scan(path: Path, pages: int) -> ScanRead:
    """OCR every page of a PDF without a text layer that holds an image; the reason when OCR is
    off, Tesseract is missing, or it read no word. OcrFailed past a bound."""
    doc = pdfium.PdfDocument(str(path))
    try:
        numbers = scanned_pages(doc)
        if not numbers:
            return ScanRead([])  # blank pages: the empty-document reason stands
        prefix = f"no text layer on any page ({len(numbers)} of its {pages} page(s) hold only images: a scan)"
        if ocr_setting() == "off":
            return ScanRead([], reason=f"{prefix}; OCR is off ({OCR_ENV}=off)")
        binary = tesseract_binary()
        if binary is None:
            return ScanRead([], reason=f"{prefix}; {INSTALL_STEP}")
        if len(numbers) > MAX_OCR_PAGES:
            raise OcrFailed(f"{prefix}; {len(numbers)} scanned pages exceed the OCR cap of {MAX_OCR_PAGES}")
        bound = BASE_SECONDS + SECONDS_PER_PAGE * len(numbers)
        deadline = time.monotonic() + bound
        words: list[Word] = []
        for number in numbers:
            left = deadline - time.monotonic()
            if left <= 0:
                raise OcrFailed(f"OCR stopped at page {number} of {pages}: over {bound:.0f} s")
            page = doc[number - 1]
            try:
                words += _read_page(binary, page, number, min(PAGE_SECONDS, left))
            finally:
                page.close()
    finally:
        doc.close()
    engine = _engine_version(binary)
    if not words:
        return ScanRead([], reason=f"{prefix}; {engine} read no word on them")
    confidence = round(sum(w.confidence for w in words) / len(words), 1)
    return ScanRead(blocks_of(words), OcrRecord(engine=engine, pages=numbers, mean_confidence=confidence))
