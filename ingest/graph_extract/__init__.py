"""Entity extraction for the graph (DESIGN §6): what an extractor returns and how one is chosen.

Two extractors share one interface. The default runs anywhere with no model weights: a curated
quant-finance vocabulary (vocabulary.tsv) plus rules for defined acronyms, `Surname (Year)`
citations and catalogue author names. GLiNER2 runs when a local model folder is configured
(argument or QUANT_RAG_GLINER_PATH); it alone yields typed relations. Co-mentions are derived by
the store from the mentions, whichever extractor produced them. No dagster here: the graph asset
imports this package.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Protocol

from corpus.models import Passage

GLINER_PATH_ENV = "QUANT_RAG_GLINER_PATH"


@dataclass(frozen=True)
class Mention:
    """One occurrence of an entity in a passage: passage_text[start:end] is `surface`."""

    chunk_id: str
    document_id: str
    name: str            # canonical name; the store keys entities by entity_key(name)
    entity_type: str     # one of corpus.graph_store.ENTITY_TYPES
    start: int
    end: int
    surface: str | None = None   # the written form, when it differs from `name`


@dataclass(frozen=True)
class Relation:
    """A typed edge head -> tail (names as in mentions of the same chunk) found in one chunk."""

    head: str
    tail: str
    relation: str        # one of corpus.graph_store.RELATION_TYPES
    chunk_id: str
    score: float


class Extractor(Protocol):
    name: str  # recorded in the graph file: "vocabulary-v1:<data hash>" or "gliner2:<path>"

    def extract(self, passages: list[Passage], authors: dict[str, list[str]]
                ) -> tuple[list[Mention], list[Relation]]:
        """Mentions and relations of `passages`; `authors` maps document_id to catalogue names."""
        ...


def load_extractor(model_path: str | None = None) -> Extractor:
    """GLiNER2 from a local model folder (argument, else QUANT_RAG_GLINER_PATH); otherwise the
    vocabulary extractor. A configured path that cannot be loaded is an error, never a silent
    fallback: the graph would otherwise change nature without anyone noticing."""
    path = model_path or os.environ.get(GLINER_PATH_ENV) or None
    if path:
        from assets.graph_extract.gliner import GlinerExtractor
        return GlinerExtractor(path)
    from assets.graph_extract.vocabulary import VocabularyExtractor
    return VocabularyExtractor()
