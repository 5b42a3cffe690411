"""get_passage's page image: a formula passage of a PDF comes with its rendered region as MCP image
content that the SDK's stdio client receives (a real server subprocess on a state the pipeline
ingested), cropped, within 200 kB, cached for the second call; a passage whose formula is inline
comes with the lines that hold it; a Markdown passage, and a PDF passage with nothing to draw, say
plainly that they have no page image."""

from __future__ import annotations

import base64
import io

import pypdfium2 as pdfium
import pytest
from mcp_stdio import run_calls
from mcp_types import ImageContent
from PIL import Image

from corpus.config import ServedConfig
from corpus.models import BlockKind
from corpus.reading.page_images import MAX_IMAGE_BYTES, RENDER_SCALES, has_inline_math
from corpus.state.layout import StateLayout
from serving.answer import page_images as passage_images


@pytest.fixture(scope="module")
def picks(ingested_home):
    """(unreliable formula passage, its document's source PDF, a Markdown passage)."""
    from serving.mcp.server import ServingContext

    reader = ServingContext(StateLayout(ingested_home), ServedConfig()).engine.parts.reader
    formula = markdown = None
    for entry in reader.documents.values():
        unreliable = [b for b in entry.parsed.blocks if b.kind is BlockKind.formula and b.formula_text_unreliable]
        for passage in reader.by_document[entry.document_id]:
            if entry.source.format == "markdown" and markdown is None:
                markdown = passage
            if formula is None and any(b.start < e and s < b.end for b in unreliable for s, e in passage.ranges):
                formula = passage
    assert formula is not None and markdown is not None
    return formula, StateLayout(ingested_home).source_file(formula.document_id, "pdf"), markdown


def test_a_formula_passage_returns_its_region_as_an_image(ingested_home, picks):
    formula, pdf, markdown = picks

    async def scenario(c):
        plain = await c("get_passage", {"chunk_id": formula.chunk_id, "neighbours": 0})
        first = await c("get_passage", {"chunk_id": formula.chunk_id, "neighbours": 0, "image": True})
        second = await c("get_passage", {"chunk_id": formula.chunk_id, "neighbours": 0, "image": True})
        md = await c("get_passage", {"chunk_id": markdown.chunk_id, "neighbours": 0, "image": True})
        return plain, first, second, md

    plain, first, second, md = run_calls(ingested_home, scenario)
    # without the option: the flag and the call that shows the formula, no image
    page = plain.structured_content["page_image"]
    assert page["available"] and page["formula_text_unreliable"] and page["unreliable_formulas"] >= 1
    assert page["call"] == f"get_passage(chunk_id={formula.chunk_id!r}, image=true)" and not page["images"]
    assert [c.type for c in plain.content] == ["text"] and "formula_text_unreliable" in plain.content[0].text
    # with it: a PNG beside the text, the one the structured answer describes
    images = [c for c in first.content if isinstance(c, ImageContent)]
    described = first.structured_content["page_image"]["images"]
    assert first.content[0].type == "text" and len(images) == len(described) >= 1
    total = 0
    for content, meta in zip(images, described):
        png = base64.b64decode(content.data)
        total += len(png)
        assert content.mime_type == "image/png" and len(png) == meta["bytes"] and not meta["cached"]
        image = Image.open(io.BytesIO(png))
        image.verify()
        assert image.format == "PNG" and image.size == (meta["width"], meta["height"])
        doc = pdfium.PdfDocument(str(pdf))
        width, height = doc[meta["page"] - 1].get_size()
        doc.close()
        full_area = width * height * RENDER_SCALES[0] ** 2  # the whole page at the best scale
        assert meta["width"] * meta["height"] < full_area / 4
    assert total <= MAX_IMAGE_BYTES
    # the second call reads the cache, and sends the same bytes
    again = second.structured_content["page_image"]["images"]
    assert again and all(meta["cached"] for meta in again)
    assert [c.data for c in second.content if isinstance(c, ImageContent)] == [c.data for c in images]
    # Markdown: no page image, said in the structured answer and in the text
    md_page = md.structured_content["page_image"]
    assert not md_page["available"] and md_page["call"] is None and not md_page["images"]
    assert "Markdown documents have no page images" in md_page["reason"]
    assert [c.type for c in md.content] == ["text"]
    assert "page image: none (Markdown documents have no page images" in md.content[0].text


@pytest.fixture(scope="module")
def reader(ingested_home):
    from serving.mcp.server import ServingContext

    return ServingContext(StateLayout(ingested_home), ServedConfig()).engine.parts.reader


@pytest.fixture(scope="module")
def inline_picks(reader):
    """(a PDF passage whose only formula is inline: "Ω is set to κP T ΣP rather than diag(σ21 , …",
    a PDF passage with no formula, table or figure, not even inline)."""
    inline = plain = None
    for entry in reader.documents.values():
        if entry.source.format != "pdf":
            continue
        for passage in reader.by_document[entry.document_id]:
            kinds = {b.kind for b in entry.parsed.blocks if any(b.start < e and s < b.end for s, e in passage.ranges)}
            if inline is None and "κP T ΣP" in passage.text and not kinds & {BlockKind.formula, BlockKind.table}:
                inline = passage
            drawn = kinds & {BlockKind.formula, BlockKind.table, BlockKind.caption}
            if plain is None and not drawn and not has_inline_math(passage.text):
                plain = passage
    assert inline is not None and plain is not None
    return inline, plain


def test_an_inline_formula_passage_returns_the_lines_that_hold_it(ingested_home, reader, inline_picks):
    inline, plain = inline_picks

    async def scenario(c):
        bare = await c("get_passage", {"chunk_id": inline.chunk_id, "neighbours": 0})
        shown = await c("get_passage", {"chunk_id": inline.chunk_id, "neighbours": 0, "image": True})
        nothing = await c("get_passage", {"chunk_id": plain.chunk_id, "neighbours": 0, "image": True})
        return bare, shown, nothing

    bare, shown, nothing = run_calls(ingested_home, scenario)
    page = bare.structured_content["page_image"]
    assert page["available"] and page["kinds"] == ["inline_formula"] and page["inline_formulas"] >= 1
    assert page["call"] == f"get_passage(chunk_id={inline.chunk_id!r}, image=true)" and page["formulas"] == 0
    assert "inline math in" in bare.content[0].text and page["call"] in bare.content[0].text
    images = [c for c in shown.content if isinstance(c, ImageContent)]
    (meta,) = shown.structured_content["page_image"]["images"]
    assert len(images) == 1 and len(base64.b64decode(images[0].data)) == meta["bytes"] <= MAX_IMAGE_BYTES
    # the lines of the paragraph that hold math: a strip of the page, not the paragraph's region
    paragraph = next(
        b
        for b in reader.documents[inline.document_id].parsed.blocks
        if b.kind is BlockKind.paragraph and b.start <= inline.text.index("κP") + inline.ranges[0][0] < b.end
    )
    region = paragraph.regions[0]
    x0, top, x1, bottom = meta["box"]
    assert meta["page"] == region[0] and top >= region[2] - 10 and bottom <= region[4] + 10
    assert bottom - top < region[4] - region[2] and meta["height"] < meta["width"] / 5
    # a passage with nothing to draw says so, in the structured answer and in the text
    none = nothing.structured_content["page_image"]
    assert not none["available"] and none["reason"] == passage_images.NOTHING_TO_DRAW and not none["images"]
    assert [c.type for c in nothing.content] == ["text"]
    assert "page image: none (this passage holds no formula (display or inline), table or figure" in (
        nothing.content[0].text
    )


def test_inline_math_whose_lines_are_not_on_the_page_says_so(reader, inline_picks, monkeypatch):
    inline, _ = inline_picks
    monkeypatch.setattr(passage_images, "math_lines", lambda *args: [])
    page, pngs = passage_images.describe(reader, inline, render=True)
    assert page.available and page.kinds == ["inline_formula"]  # the text says it has inline math
    assert pngs == [] and page.images == [] and page.reason == passage_images.NO_MATH_LINES
