"""Rendered page regions: a PNG of the part of a PDF page where a formula, table or figure is
drawn, for the reader who cannot trust the text layer. Shared by the server (get_passage) and by
ingestion (a configured formula recogniser reads the same crops).

Inline math has no block of its own: a paragraph's region is the whole paragraph. `math_lines`
finds, from the page's own characters, the text lines that hold math: a character set in a math
font (Computer Modern math italic and symbols, AMS, Latin Modern, TX/PX, STIX, Cambria Math,
Symbol) or a math character (`is_math_char`: Greek, mathematical operators and alphanumerics,
super- and subscripts, private-use glyphs without a Unicode map). Its lines are pdfium's, split at
its line breaks and baseline shifts and rejoined where a piece continues the visual line before it
(a superscript, a subscript); a line belongs to a passage when its letters and digits are part of
the passage's text.

A crop is the union of the regions asked for on one page plus CROP_MARGIN points, rendered in
greyscale at the first scale of RENDER_SCALES whose PNG fits the byte budget and whose sides stay
within MAX_SIDE_PX. Each crop is cached under the state's page-image folder, keyed by the source's
document id (a hash of its bytes), the region and RENDER_VERSION, so a second call reads a file.
pypdfium2 and Pillow are imported on first use; pdfium is not thread-safe, so renders take a lock.
"""

from __future__ import annotations

import ctypes
import io
import logging
import re
import threading
import time
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from corpus.models import Region
from corpus.reading.pdf_chars import code_points
from corpus.state.layout import StateLayout, atomic_write_bytes

log = logging.getLogger(__name__)

RENDER_VERSION = "r1"  # enters the cache key: a change of the rendering below renders anew
MAX_IMAGE_BYTES = 200_000  # one answer's images together stay under this
RENDER_SCALES = (2.0, 1.5, 1.0, 0.75)  # 144 dpi first: subscripts stay legible
MAX_SIDE_PX = 1600
CROP_MARGIN = 6.0  # points around the union, so no glyph edge is cut
_LOCK = threading.Lock()

MATH_FONT = re.compile(r"CMMI|CMSY|CMEX|CMBSY|MSBM|MSAM|Math|Symbol|rsfs|EUFM|EUSM|LMMI|LMSY|txsy|txmi|pxsy|pxmi|STIX")
_MATH_RANGES = (
    (0x0370, 0x03FF),  # Greek
    (0x1F00, 0x1FFF),  # Greek extended
    (0x2032, 0x2034),  # primes
    (0x2070, 0x209F),  # super- and subscripts
    (0x27C0, 0x27EF),  # miscellaneous mathematical symbols A
    (0x2980, 0x2AFF),  # mathematical symbols B, supplemental operators
    (0xE000, 0xF8FF),  # private use: a math font's glyph without a Unicode map
    (0x1D400, 0x1D7FF),  # mathematical alphanumerics
)
_SCRIPTS = {0x00B2, 0x00B3, 0x00B9}  # ², ³, ¹
MATCH_CHARS = 12  # a line cut by a passage boundary belongs to it when its first or last 12 letters do
_LINE_CACHE = 64  # pages whose lines are kept


@dataclass(frozen=True)
class PageImage:
    page: int
    box: tuple[float, float, float, float]  # x0, top, x1, bottom in PDF points (top-down)
    png: bytes
    width: int
    height: int
    scale: float
    cached: bool
    render_ms: float


def is_math_char(ch: str) -> bool:
    """A character that only mathematics writes: Greek, a non-ASCII mathematical symbol (Unicode
    Sm: ∑ ≤ ∈ ⊤ − ×), a letter-like or alphanumeric math letter (ℝ, 𝑥), a super- or subscript,
    a prime, or a private-use glyph (a math font without a Unicode map). ASCII is never one:
    '=' or '+' alone does not make prose mathematics its text layer can garble."""
    code = ord(ch)
    if code < 0x80:
        return False
    if code in _SCRIPTS or any(low <= code <= high for low, high in _MATH_RANGES):
        return True
    category = unicodedata.category(ch)
    return category == "Sm" or (0x2100 <= code <= 0x214F and category.startswith("L"))


def has_inline_math(text: str) -> bool:
    """Whether `text` holds a math character (is_math_char)."""
    return any(is_math_char(ch) for ch in text)


def match_key(text: str) -> str:
    """`text`'s letters and digits, compatibility-normalised and case-folded: what a page's line
    and the canonical text share whatever spaces, hyphens and symbols each kept."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


@dataclass(frozen=True)
class TextLine:
    """One visual line of a page as pdfium draws it."""

    box: tuple[float, float, float, float]  # x0, top, x1, bottom in PDF points (top-down)
    text: str  # its characters in pdfium's order, without spaces
    math: bool  # holds a character in a math font, or a math character
    size: float  # the largest font size in it


def page_lines(pdf: Path, page: int) -> list[TextLine]:
    """The visual lines of a page of `pdf` (1-based; none past the last page), kept for the
    _LINE_CACHE pages read last."""
    with _LOCK:
        return list(_read_lines(str(pdf), page))


@lru_cache(maxsize=_LINE_CACHE)
def _read_lines(pdf: str, page_no: int) -> tuple[TextLine, ...]:
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    doc = pdfium.PdfDocument(pdf)
    try:
        if not 1 <= page_no <= len(doc):
            return ()
        page = doc[page_no - 1]
        height = page.get_size()[1]
        textpage = page.get_textpage()
        raw = textpage.raw
        left, right, bottom, top = (ctypes.c_double() for _ in range(4))
        buffer, flags = ctypes.create_string_buffer(128), ctypes.c_int()
        fonts: dict[tuple[float, int], bool] = {}
        pieces: list[list[tuple[str, float, float, float, float, float, bool]]] = [[]]
        for k, code in code_points(raw):  # a character outside the BMP ('𝑥') whole, as the parser reads it
            if code in (0x0A, 0x02, 0xFFFE):  # a line break, or pdfium's mark of a wrapped line
                pieces.append([])
                continue
            if code < 0x20 or chr(code).isspace() or pdfium_c.FPDFText_IsGenerated(raw, k) == 1:
                continue
            pdfium_c.FPDFText_GetCharBox(raw, k, left, right, bottom, top)
            size = pdfium_c.FPDFText_GetFontSize(raw, k)
            key = (size, ctypes.cast(pdfium_c.FPDFText_GetTextObject(raw, k), ctypes.c_void_p).value or 0)
            if key not in fonts:
                pdfium_c.FPDFText_GetFontInfo(raw, k, buffer, len(buffer), ctypes.byref(flags))
                fonts[key] = bool(MATH_FONT.search(buffer.value.decode("latin-1", "replace")))
            ch = chr(code)
            math = fonts[key] or is_math_char(ch)
            pieces[-1].append((ch, left.value, height - top.value, right.value, height - bottom.value, size, math))
        textpage.close()
        page.close()
    finally:
        doc.close()
    lines: list[TextLine] = []
    for piece in pieces:
        if not piece:
            continue
        line = TextLine(
            (min(c[1] for c in piece), min(c[2] for c in piece), max(c[3] for c in piece), max(c[4] for c in piece)),
            "".join(c[0] for c in piece),
            any(c[6] for c in piece),
            max(c[5] for c in piece),
        )
        if lines and _continues(lines[-1], line):
            last = lines[-1]
            lines[-1] = TextLine(
                (
                    min(last.box[0], line.box[0]),
                    min(last.box[1], line.box[1]),
                    max(last.box[2], line.box[2]),
                    max(last.box[3], line.box[3]),
                ),
                last.text + line.text,
                last.math or line.math,
                max(last.size, line.size),
            )
        else:
            lines.append(line)
    return tuple(lines)


def _continues(a: TextLine, b: TextLine) -> bool:
    """b continues a's visual line (a baseline shift, not a new line or column): as the parser
    rejoins a line's pieces (ingest.parsing.pdf_lines)."""
    overlap = min(a.box[3], b.box[3]) - max(a.box[1], b.box[1])
    heights = (a.box[3] - a.box[1], b.box[3] - b.box[1], max(a.size, 1.0))
    return overlap >= 0.5 * min(heights) and -0.5 * a.size <= b.box[0] - a.box[2] <= 3 * a.size


def math_lines(pdf: Path, regions: list[Region], text: str, repairs: dict[int, str] | None = None) -> list[Region]:
    """Boxes of the lines drawn inside `regions` (a block's) that hold math and belong to `text`
    (the part of the block a passage holds): a line whose letters and digits are in the text, or,
    cut by the passage's edge, whose first or last MATCH_CHARS are. `repairs` is the document's
    glyph repair table (TextQuality.quote_table), applied to the page's characters as the parse
    applied it to the canonical text."""
    key = match_key(text)
    found: list[Region] = []
    for page, x0, top, x1, bottom in regions:
        for line in page_lines(pdf, page):
            if not line.math:
                continue
            mid_x, mid_y = (line.box[0] + line.box[2]) / 2, (line.box[1] + line.box[3]) / 2
            if not (x0 - 1 <= mid_x <= x1 + 1 and top - 1 <= mid_y <= bottom + 1):
                continue
            line_key = match_key(line.text.translate(repairs) if repairs else line.text)
            if not line_key:
                continue
            if line_key in key or (
                len(line_key) >= 2 * MATCH_CHARS and (line_key[:MATCH_CHARS] in key or line_key[-MATCH_CHARS:] in key)
            ):
                lx0, ltop, lx1, lbottom = (round(v, 1) for v in line.box)
                found.append((page, lx0, ltop, lx1, lbottom))
    return found


def crop_boxes(regions: list[Region]) -> list[Region]:
    """The union of `regions` per page, widened by CROP_MARGIN, in page order."""
    pages: dict[int, list[float]] = {}
    for page, x0, top, x1, bottom in regions:
        box = pages.setdefault(page, [x0, top, x1, bottom])
        box[:] = min(box[0], x0), min(box[1], top), max(box[2], x1), max(box[3], bottom)
    return [
        (
            page,
            round(b[0] - CROP_MARGIN, 1),
            round(b[1] - CROP_MARGIN, 1),
            round(b[2] + CROP_MARGIN, 1),
            round(b[3] + CROP_MARGIN, 1),
        )
        for page, b in sorted(pages.items())
    ]


def cache_path(layout: StateLayout, document_id: str, region: Region, budget: int) -> Path:
    page, x0, top, x1, bottom = region
    name = f"p{page}_{x0:g}_{top:g}_{x1:g}_{bottom:g}_b{budget}.png"
    return layout.page_images / RENDER_VERSION / document_id / name


def _png_size(png: bytes) -> tuple[int, int]:
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def render_png(pdf: Path, region: Region, budget: int = MAX_IMAGE_BYTES) -> tuple[bytes, float] | None:
    """(png, scale) at the first scale step that fits `budget`, or None; the box is clamped to
    the page."""
    import pypdfium2 as pdfium

    page_no, x0, top, x1, bottom = region
    with _LOCK:
        doc = pdfium.PdfDocument(str(pdf))
        try:
            if not 1 <= page_no <= len(doc):
                return None
            page = doc[page_no - 1]
            width, height = page.get_size()
            x0, top, x1, bottom = max(0.0, x0), max(0.0, top), min(width, x1), min(height, bottom)
            if x1 - x0 < 1 or bottom - top < 1:
                return None
            for scale in RENDER_SCALES:
                if max(x1 - x0, bottom - top) * scale > MAX_SIDE_PX:
                    continue
                bitmap = page.render(scale=scale, crop=(x0, height - bottom, width - x1, top), grayscale=True)
                buffer = io.BytesIO()
                bitmap.to_pil().save(buffer, format="PNG", optimize=True)
                if len(buffer.getvalue()) <= budget:
                    return buffer.getvalue(), scale
            return None
        finally:
            doc.close()


def page_image(
    layout: StateLayout, document_id: str, pdf: Path, region: Region, budget: int = MAX_IMAGE_BYTES
) -> PageImage | None:
    """The crop of `region` (already widened: see crop_boxes) as a PNG within `budget` bytes, from
    the cache when it was rendered before; None when it cannot be rendered within the bounds."""
    start = time.perf_counter()
    path = cache_path(layout, document_id, region, budget)
    box = (region[1], region[2], region[3], region[4])
    cached = path.exists()
    if cached:
        png = path.read_bytes()
    else:
        rendered = render_png(pdf, region, budget)
        if rendered is None:
            return None
        png = rendered[0]
        try:  # a read-only state still answers; it only renders again next time
            atomic_write_bytes(path, png)
        except OSError as exc:
            log.warning("page image not cached: %s", exc)
    width, height = _png_size(png)
    # to the nearest quarter; a crop clamped at the page edge reads a bit high
    scale = round(4 * width / max(1.0, box[2] - box[0])) / 4
    return PageImage(region[0], box, png, width, height, scale, cached, (time.perf_counter() - start) * 1000)
