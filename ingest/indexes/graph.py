"""Entity graph: mentions, relations and co-mentions in DuckDB, keyed by the signature."""

from __future__ import annotations

from corpus.graph.graph_store import GraphStore, write_graph
from corpus.state.layout import StateLayout
from corpus.state.signature import recorded_signature
from ingest.graph_extract import load_extractor
from ingest.indexes.corpus_view import indexed_documents


def build_entity_graph(layout: StateLayout) -> dict:
    """Extract entities from every passage and write the graph unless it matches the signature."""
    signature = recorded_signature(layout)
    if signature is None:  # a graph keyed by no signature would match no served state
        raise RuntimeError("no corpus signature recorded: materialise corpus_signature first")
    extractor = load_extractor()
    if layout.graph.exists():
        existing = GraphStore.open(layout.graph)
        if existing.signature == signature and existing.extractor == extractor.name:
            return {"signature": signature, "extractor": extractor.name, "rebuilt": 0, **existing.counts()}
    documents = indexed_documents(layout)
    mentions, relations = extractor.extract(
        [p for d in documents for p in d.passages], {d.document_id: d.authors for d in documents}
    )
    counts = write_graph(layout.graph, signature, extractor.name, mentions, relations)
    return {"signature": signature, "extractor": extractor.name, "rebuilt": 1, **counts}
