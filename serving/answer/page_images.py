"""The page image of a passage: where its display formulas, inline formulas, tables and figures are
drawn, whether their text can be trusted, and, on request, the rendered crop
(corpus.reading.page_images) as PNG bytes.

A passage's regions are those of the parsed blocks its canonical ranges overlap: display formulas,
tables, and figure captions (whose regions include the figure); and, for a text block (paragraph,
list, caption, footnote, heading) whose part in the passage holds inline math (a Greek letter or a
math symbol: corpus.reading.page_images.has_inline_math), the lines of that part that hold math,
found on the page when the image is rendered (corpus.reading.page_images.math_lines). The crop is
their union per page (at most MAX_PAGES pages, the byte budget shared).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from corpus.models import Block, BlockKind, Passage, Region
from corpus.reading.page_images import MAX_IMAGE_BYTES, crop_boxes, has_inline_math, math_lines, page_image
from corpus.reading.reader import CorpusReader

IMAGE_KINDS = (BlockKind.formula, BlockKind.table)
TEXT_KINDS = (BlockKind.paragraph, BlockKind.list, BlockKind.caption, BlockKind.footnote, BlockKind.heading)
MAX_PAGES = 2
NO_PAGES = "Markdown documents have no page images: the text is the source itself."
NOTHING_TO_DRAW = "this passage holds no formula (display or inline), table or figure, so there is no region to render."
NO_MATH_LINES = "the lines of its inline math were not found on the page."


class RenderedRegion(BaseModel):
    page: int = Field(description="1-based page number.")
    box: tuple[float, float, float, float] = Field(
        description=("x0, top, x1, bottom of the crop in PDF points from the page's top-left corner.")
    )
    width: int = Field(description="Image width in pixels.")
    height: int = Field(description="Image height in pixels.")
    bytes: int = Field(description="PNG size in bytes.")
    cached: bool = Field(description="True when read from the server's image cache.")


class PageImageOut(BaseModel):
    available: bool = Field(
        description=("True when the passage's formulas, tables or figures can be returned as an image of the page.")
    )
    reason: str | None = Field(description="Why no image is available (or was not returned); null otherwise.")
    kinds: list[str] = Field(description="What the image shows: formula, inline_formula, table, figure.")
    formulas: int = Field(description="Display formula blocks in the passage.")
    inline_formulas: int = Field(
        0,
        description=(
            "Text blocks whose part in the passage holds inline math (Greek letters, math symbols): "
            "the image shows the lines that hold it, to check the text's flattened sub- and "
            "superscripts against the page."
        ),
    )
    formula_text_unreliable: bool = Field(
        description=(
            "True when a display formula's text layer lost its two-dimensional layout (flattened "
            "sub/superscripts, fractions, limits): read the formula from the image, not the text."
        )
    )
    unreliable_formulas: int = Field(description="How many display formulas are so marked.")
    recognised_formulas: int = Field(
        description=("Display formulas whose text is LaTeX written by a formula recogniser at ingest.")
    )
    call: str | None = Field(description="The get_passage call that returns the image, written out.")
    images: list[RenderedRegion] = Field(description="The images returned beside the text (image=true).")


def _blocks(reader: CorpusReader, passage: Passage) -> list[Block]:
    blocks = reader.documents[passage.document_id].parsed.blocks
    return [
        b
        for b in blocks
        if (b.kind in IMAGE_KINDS or b.figure) and any(b.start < end and start < b.end for start, end in passage.ranges)
    ]


def _inline(reader: CorpusReader, passage: Passage) -> list[tuple[Block, str]]:
    """The text blocks whose part in the passage holds inline math, each with that part. Only an
    exact passage's text is the canonical text of its range (a table piece holds no text block)."""
    if passage.granularity != "exact":
        return []
    (start, end) = passage.ranges[0]
    found = []
    for b in reader.documents[passage.document_id].parsed.blocks:
        if b.kind in TEXT_KINDS and not b.figure and b.start < end and start < b.end:
            part = passage.text[max(b.start, start) - start : min(b.end, end) - start]
            if has_inline_math(part):
                found.append((b, part))
    return found


def _math_regions(reader: CorpusReader, passage: Passage, pdf: Path, inline: list[tuple[Block, str]]) -> list[Region]:
    quality = reader.documents[passage.document_id].parsed.text_quality
    repairs = quality.quote_table() if quality else None
    return [r for block, part in inline for r in math_lines(pdf, block.regions, part, repairs)]


def describe(reader: CorpusReader, passage: Passage, render: bool) -> tuple[PageImageOut, list[bytes]]:
    """The passage's page-image record, and the PNGs when `render` (an empty list otherwise)."""
    entry = reader.documents[passage.document_id]
    pdf_source = entry.source.format == "pdf"
    blocks = _blocks(reader, passage)
    inline = _inline(reader, passage) if pdf_source else []
    formulas = [b for b in blocks if b.kind is BlockKind.formula]
    unreliable = sum(b.formula_text_unreliable for b in formulas)
    regions = [r for b in blocks for r in b.regions]
    reason = None
    if not pdf_source:
        reason = NO_PAGES
    elif not blocks and not inline:
        reason = NOTHING_TO_DRAW
    elif not regions and not any(b.regions for b, _ in inline):
        reason = "this document was parsed without page regions; re-ingest it to get page images."
    call = None if reason else f"get_passage(chunk_id={passage.chunk_id!r}, image=true)"
    kinds = sorted({"figure" if b.figure else b.kind.value for b in blocks} | ({"inline_formula"} if inline else set()))
    out = PageImageOut(
        available=reason is None,
        reason=reason,
        kinds=kinds,
        formulas=len(formulas),
        inline_formulas=len(inline),
        formula_text_unreliable=unreliable > 0,
        unreliable_formulas=unreliable,
        recognised_formulas=sum(b.recognised_by is not None for b in formulas),
        call=call,
        images=[],
    )
    if not render or reason:
        return out, []
    pdf = reader.layout.source_file(passage.document_id, "pdf")
    if not pdf.exists():
        out.reason = "the source PDF is not in this state's sources folder."
        return out, []
    regions += _math_regions(reader, passage, pdf, inline)
    if not regions:
        out.reason = NO_MATH_LINES
        return out, []
    crops = crop_boxes(regions)[:MAX_PAGES]
    pngs: list[bytes] = []
    for region in crops:
        image = page_image(reader.layout, passage.document_id, pdf, region, MAX_IMAGE_BYTES // len(crops))
        if image is None:
            continue
        pngs.append(image.png)
        out.images.append(
            RenderedRegion(
                page=image.page,
                box=image.box,
                width=image.width,
                height=image.height,
                bytes=len(image.png),
                cached=image.cached,
            )
        )
    if not pngs:
        out.reason = f"the region could not be rendered within {MAX_IMAGE_BYTES:,} bytes."
    return out, pngs
