"""BM25 index asset (bm25s): files named by the corpus signature, with a manifest checked on load."""


import dagster as dg

from assets.corpus_view import indexed_documents
from assets.resources import StateResource
from corpus.bm25_store import BM25Index, StaleIndexError, build_bm25, indexed_text
from corpus.config import ServedConfig
from corpus.signature import recorded_signature
from corpus.state import StateLayout


def build_bm25_index(layout: StateLayout, config: ServedConfig) -> dict[str, int | str]:
    """Build the index for the recorded signature unless a valid one exists already."""
    signature = recorded_signature(layout)
    if signature is None:
        raise RuntimeError("no corpus signature recorded: materialise corpus_signature first")
    try:
        index = BM25Index.load(layout.bm25, signature)
        return {"signature": signature, "documents": index.doc_count, "rebuilt": 0}
    except StaleIndexError:
        pass
    rows = [(p.chunk_id, d.document_id, indexed_text(d.title, p.section, p.text))
            for d in indexed_documents(layout) for p in d.passages]
    build_bm25(layout.bm25, signature, rows, config.bm25_k1, config.bm25_b)
    return {"signature": signature, "documents": len(rows), "rebuilt": 1}


@dg.asset(deps=["corpus_signature"], group_name="indexes", code_version="bm25-v1",
          description="bm25s index over title + section path + passage, identifiers kept whole.")
def bm25_index(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata=build_bm25_index(state.layout, state.config))
