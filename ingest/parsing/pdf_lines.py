"""Text lines of a PDF page with their geometry and font, read character by character from pdfium.

pdfium gives characters in content-stream order (column order for LaTeX two-column papers) and
inserts generated line breaks; we keep that order and only merge the pieces of one visual line
that pdfium splits at a baseline shift (superscripts, fractions). Coordinates are top-down points.
"""

from __future__ import annotations

import ctypes
import re
from collections import Counter
from dataclasses import dataclass, field

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from corpus.reading.pdf_chars import code_points
from ingest.parsing.accents import compose

SOFT_HYPHENS = {0x02, 0xFFFE}  # pdfium marks a hyphen it joined at a line end with either
TABLE_FONT = "<table>"  # font name of a placeholder line standing for an extracted table
HYPHEN_MARK = "\u00ad"  # kept at the end of such a line; resolved when lines are joined
_BREAKS = {0x0A, 0x0D}  # pdfium's generated line breaks (CR LF)
# A glyph whose font hands pdfium code 0x0A or 0x0D without a Unicode map (OT1 sets Omega and the fl
# ligature there) is no line break: kept under a C1 stand-in, which the canonical text drops like
# any control character and the ligature restoration reads as the code it stands for. A carriage
# return left in a line would be read as a line break downstream.
GLYPH_STAND_INS = {0x0A: "\x8a", 0x0D: "\x8d"}
# A Type 3 font whose FontMatrix carries the scale (TeX's bitmap fonts, one unit a device pixel)
# reports a size of a fraction of a point: no text is set that small, so its size is estimated from
# its lower-case letters' boxes, about half an em high (x-height and bitmap margin).
MIN_FONT_SIZE = 1.0
X_HEIGHT_LETTERS = frozenset("acemnorsuvwxz")
X_BOX_PER_EM = 0.5
_MONO = re.compile(r"TT|xtt|Mono|MonL|Courier|Typewriter|Consol|SFST|SFIT")
_MATH = re.compile(r"CMMI|CMSY|CMEX|MSBM|MSAM|Math|Symbol|rsfs|EUFM|LMMI|LMSY|txsy|txmi|pxsy|pxmi")


@dataclass
class Line:
    page: int  # 1-based
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float  # dominant font size (by character count)
    font: str  # dominant base font name, subset prefix removed
    mono_share: float = 0.0  # share of characters in a monospace font
    math_share: float = 0.0  # share of characters in a math font
    sizes: Counter = field(default_factory=Counter, repr=False)

    @property
    def height(self) -> float:
        return self.bottom - self.top

    @property
    def mid(self) -> float:
        return (self.top + self.bottom) / 2


def _font_name(textpage, index: int, buffer, flags) -> str:
    pdfium_c.FPDFText_GetFontInfo(textpage, index, buffer, len(buffer), ctypes.byref(flags))
    name = buffer.value.decode("latin-1", "replace")
    return name.split("+", 1)[1] if "+" in name[:8] else name


class _Builder:
    """Accumulates characters of one pdfium line."""

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.boxes: list[tuple[float, float, float, float]] = []
        self.sizes: Counter = Counter()
        self.fonts: Counter = Counter()
        self.last_font = ""  # the font of the last character added, if it was drawn

    def add(self, ch: str, box, size: float, font: str) -> None:
        # TeX's text accent is drawn before its letter, in the letter's font; a math accent follows
        # its base in a math font ('µˆi' is a hatted mu, subscript i), a listing's caret is code
        if box is not None and self.chars and self.last_font == font and not _MATH.search(font or "CMMI"):
            if not _MONO.search(font) and (composed := compose(self.chars[-1], ch)) is not None:
                self.chars[-1] = composed
                ch = ""
        self.last_font = font if box is not None else ""
        if ch:
            self.chars.append(ch)
        if box is not None:
            self.boxes.append(box)
            self.sizes[round(size, 1)] += 1
            self.fonts[font] += 1

    def build(self, page: int, height: float) -> Line | None:
        text = "".join(self.chars).strip(" \t")
        if not text or not self.boxes:
            return None
        x0 = min(b[0] for b in self.boxes)
        x1 = max(b[1] for b in self.boxes)
        top = height - max(b[3] for b in self.boxes)
        bottom = height - min(b[2] for b in self.boxes)
        total = sum(self.fonts.values())
        mono = sum(n for f, n in self.fonts.items() if _MONO.search(f)) / total
        math = sum(n for f, n in self.fonts.items() if _MATH.search(f)) / total
        return Line(
            page,
            text,
            x0,
            x1,
            top,
            bottom,
            self.sizes.most_common(1)[0][0],
            self.fonts.most_common(1)[0][0],
            mono,
            math,
            self.sizes,
        )


def _same_visual_line(a: Line, b: Line) -> bool:
    """b continues a on the same visual line (a baseline shift, not a new line or column)."""
    overlap = min(a.bottom, b.bottom) - max(a.top, b.top)
    if overlap < 0.5 * min(a.height, b.height, max(a.size, 1.0)):
        return False
    return -0.5 * a.size <= b.x0 - a.x1 <= 3 * a.size


def _merge(a: Line, b: Line) -> Line:
    gap = b.x0 - a.x1
    text = a.text + (" " if gap > 0.15 * a.size else "") + b.text
    sizes = a.sizes + b.sizes
    n_a, n_b = len(a.text), len(b.text)
    return Line(
        a.page,
        text,
        min(a.x0, b.x0),
        max(a.x1, b.x1),
        min(a.top, b.top),
        max(a.bottom, b.bottom),
        sizes.most_common(1)[0][0],
        a.font if n_a >= n_b else b.font,
        (a.mono_share * n_a + b.mono_share * n_b) / (n_a + n_b),
        (a.math_share * n_a + b.math_share * n_b) / (n_a + n_b),
        sizes,
    )


def _font_handle(raw, k: int) -> int:
    font = pdfium_c.FPDFTextObj_GetFont(pdfium_c.FPDFText_GetTextObject(raw, k))
    return ctypes.cast(font, ctypes.c_void_p).value or 0


def _scaled_font_sizes(raw) -> dict[int, float]:
    """{font handle: estimated size} for the fonts of a page that report less than MIN_FONT_SIZE
    (module constants); empty for a page without any."""
    heights: dict[int, list[float]] = {}
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    for k in range(pdfium_c.FPDFText_CountChars(raw)):
        if pdfium_c.FPDFText_GetFontSize(raw, k) >= MIN_FONT_SIZE or pdfium_c.FPDFText_IsGenerated(raw, k) == 1:
            continue
        box = pdfium_c.FPDFText_GetCharBox(raw, k, left, right, bottom, top)
        if box and chr(pdfium_c.FPDFText_GetUnicode(raw, k)) in X_HEIGHT_LETTERS:
            heights.setdefault(_font_handle(raw, k), []).append(top.value - bottom.value)
    return {font: sorted(h)[len(h) // 2] / X_BOX_PER_EM for font, h in heights.items()}


def _is_letter(code: int | None) -> bool:
    return code is not None and chr(code).isalpha()


def page_lines(page: pdfium.PdfPage, number: int) -> list[Line]:
    """Lines of one page in pdfium's reading order, baseline-shifted pieces merged."""
    width, height = page.get_size()
    textpage = page.get_textpage()
    raw = textpage.raw
    count = pdfium_c.FPDFText_CountChars(raw)
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    buffer, flags = ctypes.create_string_buffer(128), ctypes.c_int()
    lines: list[Line] = []
    builder = _Builder()
    font_of_size: dict[tuple[float, int], str] = {}
    scaled: dict[int, float] | None = None
    previous: int | None = None
    for k, code in code_points(raw):
        before, previous = previous, code
        if code in _BREAKS:
            if pdfium_c.FPDFText_IsGenerated(raw, k) != 1:  # a glyph's code: kept beside a letter, in text
                after = pdfium_c.FPDFText_GetUnicode(raw, k + 1) if k + 1 < count else None
                if (_is_letter(before) or _is_letter(after)) and not _MATH.search(_font_name(raw, k, buffer, flags)):
                    builder.add(GLYPH_STAND_INS[code], None, 0.0, "")
            elif code == 0x0A and (line := builder.build(number, height)):
                lines.append(line)
                builder = _Builder()
            continue
        if code in SOFT_HYPHENS:  # a wrapped line: keep the mark, end the line here
            builder.chars.append(HYPHEN_MARK)
            if line := builder.build(number, height):
                lines.append(line)
            builder = _Builder()
            continue
        ch = chr(code)
        if ch.isspace() or pdfium_c.FPDFText_IsGenerated(raw, k) == 1:
            builder.add(ch, None, 0.0, "")
            continue
        pdfium_c.FPDFText_GetCharBox(raw, k, left, right, bottom, top)
        size = pdfium_c.FPDFText_GetFontSize(raw, k)
        if size < MIN_FONT_SIZE:
            scaled = _scaled_font_sizes(raw) if scaled is None else scaled
            size = scaled.get(_font_handle(raw, k), size)
        obj = pdfium_c.FPDFText_GetTextObject(raw, k)
        key = (size, ctypes.cast(obj, ctypes.c_void_p).value or 0)
        font = font_of_size.get(key)
        if font is None:
            font = font_of_size[key] = _font_name(raw, k, buffer, flags)
        builder.add(ch, (left.value, right.value, bottom.value, top.value), size, font)
    if line := builder.build(number, height):
        lines.append(line)
    textpage.close()
    merged: list[Line] = []
    for line in lines:
        if merged and _same_visual_line(merged[-1], line):
            merged[-1] = _merge(merged[-1], line)
        else:
            merged.append(line)
    return merged
