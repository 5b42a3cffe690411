"""Page furniture that is not part of the text flow: running headers/footers, bare page numbers,
and the tick labels and legends of embedded plots."""

from __future__ import annotations

import re
from collections import Counter

from ingest.parsing.pdf_lines import Line
from ingest.parsing.pdf_roles import body_size

BAND = 0.11  # top/bottom share of the page height where running lines live
REPEAT_SHARE = 0.3  # a band line repeated on this share of pages (and >= 2) is furniture
_PAGE_NUMBER = re.compile(r"^\s*(page\s+)?([0-9]{1,4}|[ivxlcdm]{1,6})(\s*(/|of)\s*[0-9]{1,4})?\s*$", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")
FIGURE_RUN = 3  # at least this many consecutive plot-font fragments make a plot


def _keys(text: str) -> set[str]:
    """The whole line and its first/last four words, digits ignored: a running header is often
    glued by pdfium to the current section name ('EXAMPLE ANALYZING AN ...')."""
    words = _DIGITS.sub("#", text.lower()).split()
    return {" ".join(words), "<" + " ".join(words[:4]), ">" + " ".join(words[-4:])}


def _edge_lines(lines: list[Line], page_height: float, body: float) -> list[Line]:
    """The two topmost and two bottommost lines, when they lie in the page's top/bottom band and
    are not set larger than the body (a title on the first page is not a running header)."""
    by_top = sorted(lines, key=lambda ln: ln.top)
    picked = {id(ln): ln for ln in by_top[:2] + by_top[-2:]}
    return [
        ln
        for ln in picked.values()
        if ln.size <= 1.15 * body and (ln.top < BAND * page_height or ln.bottom > (1 - BAND) * page_height)
    ]


def drop_running_lines(pages: list[list[Line]], heights: list[float]) -> list[list[Line]]:
    """Remove edge lines repeated across pages (digits ignored) and bare page numbers. A repeated
    line is a running header or footer only on a page that holds other text too: on a page where
    it is all there is (besides a page number), it is the page's content, kept (a file of one
    record a page, 'Record 17: ...', would otherwise lose every line)."""
    body = body_size(pages)
    seen: Counter = Counter()
    edges = [_edge_lines(lines, height, body) for lines, height in zip(pages, heights)]
    for candidates in edges:
        seen.update(set().union(*(_keys(ln.text) for ln in candidates)) if candidates else set())
    threshold = max(2, REPEAT_SHARE * len(pages))
    kept: list[list[Line]] = []
    for lines, candidates in zip(pages, edges):
        numbers = {id(ln) for ln in candidates if _PAGE_NUMBER.match(ln.text)}
        repeated = {id(ln) for ln in candidates if any(seen[k] >= threshold for k in _keys(ln.text))} - numbers
        drop = numbers | repeated if any(id(ln) not in numbers | repeated for ln in lines) else numbers
        kept.append([ln for ln in lines if id(ln) not in drop])
    return kept


def prose_fonts(pages: list[list[Line]]) -> set[str]:
    """Fonts that carry running prose somewhere in the document (lines of 6+ words)."""
    return {
        ln.font
        for lines in pages
        for ln in lines
        if len(ln.text.split()) >= 6 and sum(c.isalpha() for c in ln.text) > 0.6 * len(ln.text)
    }


_TICK = re.compile(r"^[-−+]?\d[\d.,]*%?$")


def _plot_fragment(line: Line, fonts: set[str], body: float) -> bool:
    tokens = line.text.split()
    if len(tokens) <= 2 and all(_TICK.match(t) for t in tokens):
        return True  # a bare axis tick, whatever its font
    # short lines in a font no prose uses, not larger than the body (a title block is larger); in a
    # document without prose (no line of six words) no font tells a plot from the text itself
    return (
        bool(fonts)
        and line.font not in fonts
        and line.mono_share < 0.5
        and line.math_share < 0.2
        and len(tokens) <= 6
        and line.size <= 1.05 * body
    )


def drop_plot_text(lines: list[Line], fonts: set[str], body: float) -> list[Line]:
    """Remove runs of short lines set in a font no prose uses (axis ticks, legends of plots)."""
    keep = [True] * len(lines)
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and _plot_fragment(lines[j], fonts, body):
            j += 1
        if j - i >= FIGURE_RUN:
            keep[i:j] = [False] * (j - i)
        i = max(j, i + 1)
    return [ln for ln, k in zip(lines, keep) if k]
