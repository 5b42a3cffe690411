"""corpus_status: coherence, signature, documents, metadata coverage, reranker."""

from __future__ import annotations

from corpus.signature import compute_signature
from corpus.state import StateLayout
from mcp_stdio import run_calls


def test_corpus_status_over_stdio(served_home):
    async def scenario(c):
        return (await c("corpus_status", {})).structured_content

    status = run_calls(served_home, scenario, warm_up=False)
    assert status["coherent"] and status["corpus_signature"] == compute_signature(StateLayout(served_home))
    assert status["reranker"] == "none" and status["documents"] == 3
    assert status["metadata_coverage"]["undated"] == 1
