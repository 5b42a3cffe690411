"""What an entity extractor hands to the graph store: mentions and typed relations.

Defined here, on the corpus side, because both the writer's extractors (ingest.graph_extract)
and the store (corpus.graph.graph_store) use them, and corpus never imports the writer.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mention:
    """One occurrence of an entity in a passage: passage_text[start:end] is `surface`."""

    chunk_id: str
    document_id: str
    name: str  # canonical name; the store keys entities by entity_key(name)
    entity_type: str  # one of corpus.graph.graph_store.ENTITY_TYPES
    start: int
    end: int
    surface: str | None = None  # the written form, when it differs from `name`


@dataclass(frozen=True)
class Relation:
    """A typed edge head -> tail (names as in mentions of the same chunk) found in one chunk."""

    head: str
    tail: str
    relation: str  # one of corpus.graph.graph_store.RELATION_TYPES
    chunk_id: str
    score: float
