"""Entity extraction for the graph (docs/DESIGN.md §6): what an extractor returns and how one is chosen.

Two extractors share one interface. The default runs anywhere with no model weights: a curated
quant-finance vocabulary (vocabulary.tsv) plus rules for defined acronyms, `Surname (Year)`
citations and catalogue author names. GLiNER2 runs when a local model folder is configured
(argument or QUANT_RAG_GLINER_PATH); it alone yields typed relations. Co-mentions are derived by
the store from the mentions, whichever extractor produced them. No dagster here: the graph asset
imports this package. `Mention` and `Relation` live in corpus.graph.entities (the store uses them too).
"""

from __future__ import annotations

import os
from typing import Protocol

from corpus.graph.entities import Mention, Relation
from corpus.models import Passage

__all__ = ["Extractor", "GLINER_PATH_ENV", "Mention", "Relation", "load_extractor"]

GLINER_PATH_ENV = "QUANT_RAG_GLINER_PATH"


class Extractor(Protocol):
    name: str  # recorded in the graph file: "vocabulary-v1:<data hash>" or "gliner2:<path>"

    def extract(self, passages: list[Passage], authors: dict[str, list[str]]) -> tuple[list[Mention], list[Relation]]:
        """Mentions and relations of `passages`; `authors` maps document_id to catalogue names."""
        ...


def load_extractor(model_path: str | None = None) -> Extractor:
    """GLiNER2 from a local model folder (argument, else QUANT_RAG_GLINER_PATH); otherwise the
    vocabulary extractor. A configured path that cannot be loaded is an error, never a silent
    fallback: the graph would otherwise change nature without anyone noticing."""
    path = model_path or os.environ.get(GLINER_PATH_ENV) or None
    if path:
        from ingest.graph_extract.gliner import GlinerExtractor

        return GlinerExtractor(path)
    from ingest.graph_extract.vocabulary import VocabularyExtractor

    return VocabularyExtractor()
