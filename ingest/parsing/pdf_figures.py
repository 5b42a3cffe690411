"""Where a figure is drawn: the graphics a "Figure N" caption belongs to, added to its regions.

A figure's plot text is dropped from the canonical text (pdf_furniture.drop_plot_text), so its
caption is all the text says of it. Its picture is the page's graphic objects (paths, images,
forms, shadings) that lie between the caption and the nearest text block above it on the page
(LaTeX sets a figure's caption below it), or, failing that, below it. Thin rules (table lines,
fraction bars) do not count, and a cluster under MIN_FIGURE_HEIGHT points is no figure.
"""

from __future__ import annotations

import re
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from corpus.models import BlockKind, RawBlock, Region

FIGURE_CAPTION = re.compile(r"^(Figure|Fig\.)\s*[A-Z]?\d+")
MIN_FIGURE_HEIGHT = 30.0
RULE = 2.0  # a graphic thinner than this (points) is a rule, not a picture
_GRAPHICS = (
    pdfium_c.FPDF_PAGEOBJ_PATH,
    pdfium_c.FPDF_PAGEOBJ_IMAGE,
    pdfium_c.FPDF_PAGEOBJ_SHADING,
    pdfium_c.FPDF_PAGEOBJ_FORM,
)


def _graphics(page) -> list[tuple[float, float, float, float]]:
    """(x0, top, x1, bottom) of the page's non-text objects, top-down points."""
    height = page.get_size()[1]
    boxes = []
    for obj in page.get_objects(filter=_GRAPHICS, max_depth=1):
        left, bottom, right, top = obj.get_bounds()
        if right - left >= RULE and top - bottom >= RULE:
            boxes.append((left, height - top, right, height - bottom))
    return boxes


def _figure_box(caption: Region, others: list[Region], graphics) -> Region | None:
    page, _, c_top, _, c_bottom = caption
    above = max((r[4] for r in others if r[4] <= c_top + 1), default=0.0)
    below = min((r[2] for r in others if r[2] >= c_bottom - 1), default=1e9)
    for low, high in ((above - 1, c_top + 1), (c_bottom - 1, below + 1)):
        inside = [g for g in graphics if g[1] >= low and g[3] <= high]
        if inside and max(g[3] for g in inside) - min(g[1] for g in inside) >= MIN_FIGURE_HEIGHT:
            return (
                page,
                round(min(g[0] for g in inside), 1),
                round(min(g[1] for g in inside), 1),
                round(max(g[2] for g in inside), 1),
                round(max(g[3] for g in inside), 1),
            )
    return None


def add_figure_regions(path: Path, blocks: list[RawBlock]) -> list[RawBlock]:
    """`blocks` with each figure caption's figure region appended to its regions (`figure` set)."""
    wanted = [
        i for i, b in enumerate(blocks) if b.kind is BlockKind.caption and b.regions and FIGURE_CAPTION.match(b.text)
    ]
    if not wanted:
        return blocks
    out = list(blocks)
    doc = pdfium.PdfDocument(str(path))
    try:
        graphics: dict[int, list] = {}
        for i in wanted:
            caption = blocks[i].regions[0]
            page = caption[0]
            if page not in graphics and 1 <= page <= len(doc):
                graphics[page] = _graphics(doc[page - 1])
            others = [r for j, b in enumerate(blocks) if j != i for r in b.regions if r[0] == page]
            box = _figure_box(caption, others, graphics.get(page, []))
            if box is not None:
                out[i] = blocks[i].model_copy(update={"regions": [*blocks[i].regions, box], "figure": True})
    finally:
        doc.close()
    return out
