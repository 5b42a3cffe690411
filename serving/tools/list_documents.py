"""list_documents: the bibliography, newest first, filtered and paginated."""

from __future__ import annotations

from pydantic import BaseModel, Field, model_validator

from corpus.models import TextQuality
from corpus.reading.reader import CorpusReader
from corpus.text.names import fold_name as fold
from serving.answer.contract import render_trace
from serving.answer.outputs import DocumentOut, Trace
from serving.answer.served import document_out
from serving.retrieval.scope import Scope
from serving.toolkit.context import ToolContext
from serving.toolkit.empty_scope import EmptyScope, diagnose
from serving.toolkit.empty_scope import render as render_empty_scope
from serving.toolkit.filters import AUTHOR, YearMax, YearMin
from serving.toolkit.tool_spec import ToolInput, ToolSpec

MAX_LIMIT = 200


class ListDocumentsInput(ToolInput):
    author: str | None = Field(None, min_length=1, max_length=200, description=AUTHOR)
    year_min: YearMin = None
    year_max: YearMax = None
    title: str | None = Field(None, min_length=1, max_length=300, description="Part of the title, any case.")
    offset: int = Field(0, ge=0, le=1_000_000, description="Documents to skip: 0, then `next_offset`.")
    limit: int = Field(50, ge=1, le=MAX_LIMIT, description="Documents in this page.")

    @model_validator(mode="after")
    def _ordered_years(self) -> ListDocumentsInput:
        if self.year_min is not None and self.year_max is not None and self.year_min > self.year_max:
            raise ValueError("year_min must not exceed year_max")
        return self


class ListedDocument(DocumentOut):
    garbled_text: bool = Field(
        description=("The text layer is broken (garbled glyphs or mostly unattested words): do not quote it.")
    )
    text_quality: TextQuality | None = Field(
        description=(
            "Measured at parse time: share of prose words the library vocabulary attests, unknown "
            "glyphs, glyphs repaired and words rejoined; null for a document parsed before it existed."
        )
    )


def _listed(reader: CorpusReader, document_id: str) -> ListedDocument:
    parsed = reader.documents[document_id].parsed
    return ListedDocument(
        **document_out(reader, document_id).model_dump(),
        garbled_text=parsed.garbled_text,
        text_quality=parsed.text_quality,
    )


class ListDocumentsOutput(BaseModel):
    documents: list[ListedDocument]
    total: int = Field(description="Documents matching the filters.")
    offset: int
    next_offset: int | None = Field(description="Offset of the next page; null on the last page.")
    empty_scope: EmptyScope | None = Field(
        None,
        description=("Set when the author or year filters match no document: which failed, and the nearest values."),
    )
    trace: Trace


def handle(ctx: ToolContext, args: ListDocumentsInput) -> ListDocumentsOutput:
    engine = ctx.engine
    reader = engine.parts.reader
    scope = Scope(args.year_min, args.year_max, (args.author,) if args.author else ())
    allowed = engine.catalogue.documents_in_scope(scope)
    ids = list(reader.documents) if allowed is None else list(allowed)
    if args.title:
        needle = fold(args.title)
        ids = [d for d in ids if needle in fold(reader.title(d) or "")]
    # newest first; undated last; then by title for a stable order
    ids.sort(key=lambda d: (-(reader.documents[d].year or -1), fold(reader.title(d) or ""), d))
    page = ids[args.offset : args.offset + args.limit]
    end = args.offset + len(page)
    return ListDocumentsOutput(
        documents=[_listed(reader, d) for d in page],
        total=len(ids),
        offset=args.offset,
        next_offset=end if end < len(ids) else None,
        empty_scope=diagnose(ctx.engine, scope, "list_documents") if allowed == set() else None,
        trace=ctx.trace(None),
    )


def render(out: ListDocumentsOutput) -> str:
    lines = [f"{out.total} document(s); showing {len(out.documents)} from offset {out.offset}"]
    if out.empty_scope is not None:
        lines.append(render_empty_scope(out.empty_scope))
    for d in out.documents:
        lines.append(f"- {d.cite.text} · {d.passages} passages · document_id={d.document_id}")
    flagged = [d.document_id for d in out.documents if d.garbled_text]
    repaired = sum(
        1 for d in out.documents if d.text_quality and (d.text_quality.repairs or d.text_quality.joined_words)
    )
    lines.append(
        f"text: {len(flagged)} flagged garbled{' (' + ', '.join(flagged) + ')' if flagged else ''}, "
        f"{repaired} with repaired glyphs or rejoined words (see text_quality)"
    )
    if out.next_offset is not None:
        lines.append(f"next page: offset={out.next_offset}")
    lines.append(render_trace(out.trace))
    return "\n".join(lines)


SPEC = ToolSpec(
    name="list_documents",
    title="List documents",
    description=(
        "The library's bibliography, newest first, undated documents last: id, title, authors, "
        "year, passages, cite line, text quality. Use it to see what the library holds or find a "
        "document_id; for content, search_documents. Years are inclusive."
    ),
    input_model=ListDocumentsInput,
    output_model=ListDocumentsOutput,
    handler=handle,
    render=render,
    cheap=True,
    errors=(("invalid_argument", "year_min after year_max"),),
)
