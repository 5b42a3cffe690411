"""get_passage: read one passage, a window of PASSAGE_WINDOW characters at a time, with its
neighbours in reading order."""

from __future__ import annotations

from pydantic import BaseModel, Field, PrivateAttr

from corpus.ids import ChunkId
from serving.answer.contract import PASSAGE_WINDOW, render_passage, render_trace
from serving.answer.errors import InvalidArgument, NotFound
from serving.answer.outputs import PassageOut, Trace
from serving.answer.page_images import PageImageOut, describe
from serving.answer.served import passage_out
from serving.toolkit.context import ToolContext
from serving.toolkit.tool_spec import ToolInput, ToolSpec

MAX_NEIGHBOURS = 3


class GetPassageInput(ToolInput):
    chunk_id: ChunkId = Field(description="From a search, timeline or graph tool.")
    offset: int = Field(
        0,
        ge=0,
        le=10_000_000,
        description="0, or the `next_offset` of a cut window.",
    )
    neighbours: int = Field(
        0,
        ge=0,
        le=MAX_NEIGHBOURS,
        description="Passages added on each side.",
    )
    image: bool = Field(
        False,
        description="Also send its formulas, tables and inline math as drawn (PNG).",
    )


class Neighbour(BaseModel):
    position: int = Field(description="Reading-order distance from the requested passage (negative = before).")
    passage: PassageOut


class GetPassageOutput(BaseModel):
    passage: PassageOut
    ordinal: int = Field(description="Reading-order index of the passage in its document.")
    document_passages: int
    neighbours: list[Neighbour]
    page_image: PageImageOut = Field(
        description=(
            "The requested passage's formulas (display and inline), tables and figures as drawn on the "
            "page: whether their text can be trusted, and the call (or, with image=true, the images) "
            "that shows them."
        )
    )
    trace: Trace
    _images: list[bytes] = PrivateAttr(default_factory=list)  # PNGs sent as image content


def handle(ctx: ToolContext, args: GetPassageInput) -> GetPassageOutput:
    reader = ctx.engine.parts.reader
    passage = reader.passage(args.chunk_id)
    if passage is None:
        raise NotFound(f"unknown chunk_id {args.chunk_id}", fields=["chunk_id"])
    if args.offset > len(passage.text):
        raise InvalidArgument(
            f"offset {args.offset} is past the end of the passage ({len(passage.text)} characters)",
            fields=["offset"],
            next_call=f"call get_passage with offset from 0 to {len(passage.text)}",
        )
    siblings = reader.by_document[passage.document_id]
    index = next(i for i, p in enumerate(siblings) if p.chunk_id == passage.chunk_id)
    neighbours = [
        Neighbour(position=i - index, passage=passage_out(reader, siblings[i], PASSAGE_WINDOW, score=None))
        for i in range(max(0, index - args.neighbours), min(len(siblings), index + args.neighbours + 1))
        if i != index
    ]
    page_image, pngs = describe(reader, passage, args.image)
    out = GetPassageOutput(
        passage=passage_out(reader, passage, PASSAGE_WINDOW, score=None, offset=args.offset),
        ordinal=index,
        document_passages=len(siblings),
        neighbours=neighbours,
        page_image=page_image,
        trace=ctx.trace("passage"),
    )
    out._images = pngs
    return out


def images(out: GetPassageOutput) -> list[tuple[bytes, str]]:
    return [(png, "image/png") for png in out._images]


def _render_page_image(page: PageImageOut) -> str:
    if page.reason and not page.images:
        return f"page image: none ({page.reason})"
    lines = []
    if page.formula_text_unreliable:
        lines.append(
            f"formula_text_unreliable: {page.unreliable_formulas} of {page.formulas} display "
            "formula(s) lost their layout in the text layer; read them from the page image"
        )
    if page.inline_formulas and not page.images:
        lines.append(
            f"inline math in {page.inline_formulas} text block(s): the text layer flattens its sub- and "
            "superscripts; the page image shows the lines that hold it"
        )
    if page.images:
        lines += [
            f"page image: page {i.page}, {i.width}x{i.height} px, {i.bytes:,} bytes (PNG attached)" for i in page.images
        ]
    else:
        lines.append(f"page image ({', '.join(page.kinds)}): {page.call}")
    return "\n".join(lines)


def render(out: GetPassageOutput) -> str:
    before = [n for n in out.neighbours if n.position < 0]
    after = [n for n in out.neighbours if n.position > 0]
    blocks = [f"passage {out.ordinal + 1} of {out.document_passages} in its document"]
    blocks += [f"--- neighbour {n.position:+d}\n" + render_passage(None, n.passage) for n in before]
    blocks.append("--- requested passage\n" + render_passage(None, out.passage))
    blocks.append(_render_page_image(out.page_image))
    blocks += [f"--- neighbour {n.position:+d}\n" + render_passage(None, n.passage) for n in after]
    blocks.append(render_trace(out.trace))
    return "\n\n".join(blocks)


SPEC = ToolSpec(
    name="get_passage",
    title="Read a passage",
    description=(
        "Read a passage by chunk_id, with its neighbours. Use it for a hit's context before "
        "answering from it, or to read on where it was cut: "
        f"{PASSAGE_WINDOW:,} characters from `offset`, then `next_offset`."
    ),
    input_model=GetPassageInput,
    output_model=GetPassageOutput,
    handler=handle,
    render=render,
    window="passage",
    cheap=True,
    images=images,
    errors=(("not_found", "unknown chunk_id"), ("invalid_argument", "offset past the end")),
)
