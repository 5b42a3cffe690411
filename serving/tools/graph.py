"""The entity-graph tools: search_graph, expand_entity, connect_entities."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from corpus.graph.graph_store import ENTITY_TYPES, EXAMPLE_CHUNKS, MIN_CONTAINING_QUERY, TOP_DOCUMENTS
from serving.answer.contract import SEARCH_WINDOW, render_passage, render_trace
from serving.answer.outputs import Cite, PassageOut, Trace
from serving.answer.served import cite_of, passage_out
from serving.toolkit.context import ToolContext
from serving.toolkit.tool_spec import ToolInput, ToolSpec

EntityType = Literal[ENTITY_TYPES]  # type: ignore[valid-type]
# No relation filter is offered: the default (vocabulary) extractor yields no typed relations, so
# every value of such a filter would answer nothing. Relations a GLiNER2 graph holds still show
# as expand_entity's neighbours.
MAX_NAME = 200
MAX_RESULTS = 20
MAX_NEIGHBOURS = 50
# How a name finds entities (corpus.graph.graph_store.GraphStore.find_entities), quoted by the tools.
NAMES = (
    f"Names: canonical, alias or acronym, any case; at least {MIN_CONTAINING_QUERY} characters "
    "also match words in longer names."
)
_NAME_PARAM = "A canonical name, alias or acronym, any case; see search_graph."


class EntityMatch(BaseModel):
    key: str
    name: str
    type: str
    mentions: int
    weight: float = Field(description="1.0: the name equals one of its forms; 0.5: contained in one.")


class GraphPassage(PassageOut):
    entities: list[str] = Field(description="Matched entities mentioned in the passage.")


def _passages(ctx: ToolContext, chunks: list[dict], limit: int) -> list[GraphPassage]:
    reader = ctx.engine.parts.reader
    out = []
    for chunk in chunks:
        passage = reader.passages.get(chunk["chunk_id"])
        if passage is None:  # graph and corpus agree when coherent; skip rather than fail
            continue
        served = passage_out(reader, passage, SEARCH_WINDOW, score=float(chunk["score"]))
        out.append(GraphPassage(**served.model_dump(), entities=list(chunk.get("entities", []))))
        if len(out) >= limit:
            break
    return out


# -- search_graph --------------------------------------------------------------------------
class SearchGraphInput(ToolInput):
    query: str = Field(
        min_length=1,
        max_length=MAX_NAME,
        description="A name or part of one; aliases match.",
    )
    entity_type: EntityType | None = Field(None, description="Only entities of this type.")
    limit: int = Field(10, ge=1, le=MAX_RESULTS, description="Passages, best first.")


class SearchGraphOutput(BaseModel):
    entities: list[EntityMatch]
    candidates: int
    results: list[GraphPassage]
    trace: Trace


def search_graph(ctx: ToolContext, args: SearchGraphInput) -> SearchGraphOutput:
    found = ctx.engine.parts.graph.search(
        args.query, args.entity_type, None, limit=args.limit, per_document=ctx.config.per_document
    )
    return SearchGraphOutput(
        entities=found["entities"],
        candidates=found["candidates"],
        results=_passages(ctx, found["chunks"], args.limit),
        trace=ctx.trace("search"),
    )


def render_match(e: EntityMatch) -> str:
    """One matched entity with its key (a name expand_entity and connect_entities accept)."""
    return f"{e.type}:{e.name} [key={e.key}] ({e.mentions} mentions, weight {e.weight:g})"


def render_search(out: SearchGraphOutput) -> str:
    names = "; ".join(render_match(e) for e in out.entities) or "none"
    blocks = [f"entities: {names} · {out.candidates} candidate passage(s) · {len(out.results)} returned"]
    blocks += [
        render_passage(i, p) + "\nentities: " + ", ".join(p.entities) for i, p in enumerate(out.results, start=1)
    ]
    blocks.append(render_trace(out.trace))
    return "\n\n---\n\n".join(blocks)


# -- expand_entity -------------------------------------------------------------------------
class ExpandEntityInput(ToolInput):
    entity_name: str = Field(min_length=1, max_length=MAX_NAME, description=_NAME_PARAM)
    entity_type: EntityType | None = Field(None, description="Only match entities of this type.")
    limit: int = Field(20, ge=1, le=MAX_NEIGHBOURS, description="Neighbours, and as many co-mentions.")


class Example(BaseModel):
    chunk_id: str
    cite: Cite


class NeighbourOut(BaseModel):
    relation: str
    direction: Literal["out", "in"]
    key: str = Field(description="The neighbour's entity key (a name the graph tools accept).")
    name: str
    type: str
    support: int = Field(description="Passages stating the relation.")
    examples: list[Example]


class CoMention(BaseModel):
    key: str = Field(description="The entity's key (a name the graph tools accept).")
    name: str
    type: str
    shared_chunks: int
    score: float = Field(description="Shared passages × ln(N / passages mentioning it): rarity-weighted.")
    examples: list[Example]


class ExpandEntityOutput(BaseModel):
    entity: EntityMatch | None
    matches: list[EntityMatch]
    neighbours: list[NeighbourOut]
    co_mentions: list[CoMention]
    trace: Trace


def _examples(ctx: ToolContext, chunk_ids: list[str]) -> list[Example]:
    reader = ctx.engine.parts.reader
    return [
        Example(chunk_id=c, cite=cite_of(reader, p.document_id, p.page_start, p.page_end))
        for c in chunk_ids
        if (p := reader.passages.get(c)) is not None
    ]


def expand_entity(ctx: ToolContext, args: ExpandEntityInput) -> ExpandEntityOutput:
    found = ctx.engine.parts.graph.expand(args.entity_name, None, args.entity_type, args.limit)
    fields = ("relation", "direction", "key", "name", "type", "support")
    neighbours = [
        NeighbourOut(**{k: n[k] for k in fields}, examples=_examples(ctx, n["chunk_ids"])) for n in found["neighbours"]
    ]
    co = [
        CoMention(
            **{k: c[k] for k in ("key", "name", "type", "shared_chunks", "score")},
            examples=_examples(ctx, c["chunk_ids"]),
        )
        for c in found["co_mentions"]
    ]
    return ExpandEntityOutput(
        entity=found["entity"], matches=found["matches"], neighbours=neighbours, co_mentions=co, trace=ctx.trace(None)
    )


def _render_example(e: Example) -> str:
    return f"    {e.cite.text} [chunk_id={e.chunk_id}]"


def render_expand(out: ExpandEntityOutput) -> str:
    if out.entity is None:
        return f"no entity matches\n{render_trace(out.trace)}"
    lines = ["entity: " + render_match(out.entity)]
    if len(out.matches) > 1:
        lines.append("expanded matches: " + "; ".join(render_match(m) for m in out.matches))
    for n in out.neighbours:
        arrow = f"—{n.relation}→" if n.direction == "out" else f"←{n.relation}—"
        lines.append(f"- {arrow} {n.type}:{n.name} [key={n.key}] ({n.support} passage(s))")
        lines += [_render_example(e) for e in n.examples]
    if out.co_mentions:
        lines.append("co-mentioned (shared passages, rarity-weighted score; example passages):")
    for c in out.co_mentions:
        lines.append(f"- {c.type}:{c.name} [key={c.key}] ({c.shared_chunks}, {c.score:.2f})")
        lines += [_render_example(e) for e in c.examples]
    lines.append(render_trace(out.trace))
    return "\n".join(lines)


# -- connect_entities ----------------------------------------------------------------------
class ConnectEntitiesInput(ToolInput):
    entity_a: str = Field(min_length=1, max_length=MAX_NAME, description=_NAME_PARAM)
    entity_b: str = Field(min_length=1, max_length=MAX_NAME, description="The second entity, named alike.")
    limit: int = Field(10, ge=1, le=MAX_RESULTS, description="Passages, best first.")


class SharedDocument(BaseModel):
    document_id: str
    shared_chunks: int
    cite: Cite


class ConnectEntitiesOutput(BaseModel):
    a: list[EntityMatch]
    b: list[EntityMatch]
    results: list[GraphPassage]
    documents: list[SharedDocument]
    trace: Trace


def connect_entities(ctx: ToolContext, args: ConnectEntitiesInput) -> ConnectEntitiesOutput:
    found = ctx.engine.parts.graph.connect(args.entity_a, args.entity_b, limit=args.limit)
    reader = ctx.engine.parts.reader
    documents = [
        SharedDocument(**d, cite=cite_of(reader, d["document_id"]))
        for d in found["documents"]
        if d["document_id"] in reader.documents
    ]
    return ConnectEntitiesOutput(
        a=found["a"],
        b=found["b"],
        results=_passages(ctx, found["chunks"], args.limit),
        documents=documents,
        trace=ctx.trace("search"),
    )


def render_connect(out: ConnectEntitiesOutput) -> str:
    head = (
        f"{len(out.a)} match(es) for A, {len(out.b)} for B · {len(out.results)} passage(s) "
        f"where they meet in {len(out.documents)} document(s)"
    )
    blocks = [
        head,
        "A: " + ("; ".join(render_match(m) for m in out.a) or "none"),
        "B: " + ("; ".join(render_match(m) for m in out.b) or "none"),
    ]
    blocks += [f"- {d.cite.text} ({d.shared_chunks} passage(s)) · document_id={d.document_id}" for d in out.documents]
    blocks += [render_passage(i, p) for i, p in enumerate(out.results, start=1)]
    blocks.append(render_trace(out.trace))
    return "\n\n".join(blocks)


_GRAPH_NOTE = "In memory."
SPECS = [
    ToolSpec(
        name="search_graph",
        title="Search the entity graph",
        description=lambda ctx: (
            "Passages mentioning a named entity, best first, at most "
            f"{ctx.config.per_document} per document, with the entities matched. Use it to find "
            "where a named method, measure or person is discussed; for questions use "
            "search_documents."
        ),
        input_model=SearchGraphInput,
        output_model=SearchGraphOutput,
        handler=search_graph,
        render=render_search,
        window="search",
    ),
    ToolSpec(
        name="expand_entity",
        title="Expand an entity",
        description=(
            "The entities mentioned with an entity in the same passages, rarest first, with "
            f"{EXAMPLE_CHUNKS} example passages each. Use it to explore what the library connects "
            "to a concept. " + NAMES
        ),
        input_model=ExpandEntityInput,
        output_model=ExpandEntityOutput,
        handler=expand_entity,
        render=render_expand,
    ),
    ToolSpec(
        name="connect_entities",
        title="Connect two entities",
        description=(
            f"Passages mentioning both `entity_a` and `entity_b`, best first, and up to {TOP_DOCUMENTS} "
            "documents holding both. Use it for 'how does A relate to B'; none means the graph never "
            "saw them together: then use search_documents."
        ),
        input_model=ConnectEntitiesInput,
        output_model=ConnectEntitiesOutput,
        handler=connect_entities,
        render=render_connect,
        window="search",
    ),
]
