"""What each PDF line is (heading, code, formula, list item, caption, footnote, text), decided from
document-wide statistics: the body font size, the sizes used by headings, the line pitch, and each
page's column margins."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field

from ingest.parsing.pdf_lines import TABLE_FONT, Line

HEADING_RATIO = 1.08  # a line this much larger than the body font may be a heading
MAX_HEADING_CHARS = 150
_BOLD = re.compile(r"Bold|BX|Bd|Semibold|Demi|Heavy|Black|-Medi|CMB\d|Medium", re.IGNORECASE)
_CAPTION = re.compile(r"^(Figure|Fig\.|Table|Exhibit|Listing|Algorithm)\s+[A-Z]?\d+(\.\d+)*\s*[:.]")
BULLET = re.compile(r"^([•◦▪‣∙·–\-*►▶]|\(?[0-9]{1,2}[.)]|\([a-z]{1,3}\)|[a-z][.)])\s+\S")
DOT_LEADER = re.compile(r"(\.\s?){4,}\s*\d+\s*$")
PAGE_REF = re.compile(r"\s\d{1,4}\s*$")
EQ_NUMBER = re.compile(r"^\(\s*[0-9A-Z]+(\.[0-9]+)*[a-z]?\s*\)$")
_MATH_CHARS = set("=<>+±×÷∑∏∫√∞∂∇≤≥≠≈∼∝∈∉⊂⊆∪∩→←↔⇒⇔|^_·∗′")


@dataclass
class DocStats:
    body_size: float
    pitch: float
    heading_levels: dict[float, int]  # rounded font size -> heading level
    bold_level: int  # level of body-size bold headings
    margins: dict[int, list[float]] = field(default_factory=dict)  # page -> column left edges


def _round(size: float) -> float:
    return round(size * 2) / 2


def math_density(text: str) -> float:
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return 0.0
    hits = sum(
        c in _MATH_CHARS or "\u0370" <= c <= "\u03ff" or "\u2200" <= c <= "\u22ff" or "\U0001d400" <= c <= "\U0001d7ff"
        for c in chars
    )
    return hits / len(chars)


def _heading_shape(line: Line) -> bool:
    text = line.text
    return (
        len(text) <= MAX_HEADING_CHARS
        and sum(c.isalpha() for c in text) >= 2
        and line.mono_share < 0.5
        and line.math_share < 0.3
        and math_density(text) < 0.2
    )


def _page_margins(lines: list[Line], body: float) -> list[float]:
    counts = Counter(
        round(ln.x0) for ln in lines if len(ln.text) >= 30 and abs(ln.size - body) < 1.5 and ln.mono_share < 0.5
    )
    # a column edge starts many lines; a paragraph indent (about 1-2 em in) starts only a few
    floor = max(2, 0.15 * sum(counts.values()))
    edges: list[float] = []
    for x, n in sorted(counts.items()):
        if n >= floor and not (edges and x - edges[-1] < 2 * body):
            edges.append(float(x))
    return edges


def body_size(pages: list[list[Line]]) -> float:
    """The font size that sets the most prose characters (code is often set smaller)."""
    weights: Counter = Counter()
    for lines in pages:
        for ln in lines:
            if ln.mono_share < 0.5:
                weights[_round(ln.size)] += len(ln.text)
    return weights.most_common(1)[0][0] if weights else 10.0


def document_stats(pages: list[list[Line]]) -> DocStats:
    body = body_size(pages)
    steps = [
        b.top - a.top
        for lines in pages
        for a, b in zip(lines, lines[1:])
        if abs(a.size - body) < 1 and abs(b.size - body) < 1 and 0.8 * body < b.top - a.top < 2.2 * body
    ]
    pitch = statistics.median(steps) if steps else 1.2 * body
    sizes = Counter(
        _round(ln.size) for lines in pages for ln in lines if ln.size >= HEADING_RATIO * body and _heading_shape(ln)
    )
    levels = {size: rank + 1 for rank, size in enumerate(sorted(sizes, reverse=True))}
    margins = {i + 1: _page_margins(lines, body) for i, lines in enumerate(pages)}
    return DocStats(body, pitch, levels, min(len(levels) + 1, 6), margins)


def column_left(line: Line, stats: DocStats) -> float:
    edges = [x for x in stats.margins.get(line.page, []) if x <= line.x0 + 3]
    return edges[-1] if edges else line.x0


def heading_level(line: Line, stats: DocStats) -> int | None:
    """Level of a heading line, or None. Larger fonts rank first; bold body-size lines come last."""
    if not _heading_shape(line):
        return None
    level = stats.heading_levels.get(_round(line.size))
    if level is not None and line.size >= HEADING_RATIO * stats.body_size:
        return min(level, 6)
    bold = _BOLD.search(line.font) is not None
    if (
        bold
        and not line.text[0].islower()
        and abs(line.size - stats.body_size) < 1
        and len(line.text.split()) <= 12
        and not line.text.rstrip().endswith((".", ",", ";"))
        and not _CAPTION.match(line.text)
    ):
        return stats.bold_level
    return None


def is_formula(line: Line, stats: DocStats) -> bool:
    text = line.text.strip()
    if EQ_NUMBER.match(text):
        return True
    dense = line.math_share >= 0.35 or (math_density(text) >= 0.25 and len(text) <= 80)
    indented = line.x0 - column_left(line, stats) > 1.5 * stats.body_size
    return dense and (indented or len(text) <= 40)


def role(line: Line, stats: DocStats) -> str:
    if line.font == TABLE_FONT:
        return "table"
    if line.mono_share >= 0.6:
        return "code"
    if heading_level(line, stats) is not None:
        return "heading"
    if is_formula(line, stats):
        return "formula"
    if _CAPTION.match(line.text):
        return "caption"
    if BULLET.match(line.text):
        return "list"
    return "text"
