"""corpus_status: coherence, signature, documents, metadata coverage, reranker, late interaction."""

from __future__ import annotations

from mcp_stdio import assert_error, run_calls

from corpus.state.layout import StateLayout
from corpus.state.signature import compute_signature


def test_corpus_status_over_stdio(served_home):
    async def scenario(c):
        return (await c("corpus_status", {})).structured_content

    status = run_calls(served_home, scenario, warm_up=False)
    assert status["coherent"] and status["corpus_signature"] == compute_signature(StateLayout(served_home))
    assert status["reranker"] == "none" and status["documents"] == 3
    assert status["metadata_coverage"]["undated"] == 1
    assert status["late_interaction"] == "on"  # the fixture built the token index


def test_corpus_status_says_late_interaction_is_off_without_a_token_index(served_copy):
    import shutil

    shutil.rmtree(StateLayout(served_copy).token_indexes)

    async def scenario(c):
        return (await c("corpus_status", {})).structured_content

    status = run_calls(served_copy, scenario, warm_up=False)
    assert status["coherent"] and status["late_interaction"].startswith("off: no token index")


def test_corpus_status_explains_an_incoherent_state_that_every_other_tool_refuses(served_copy):
    """The entity graph is deleted: corpus_status still answers, saying what is wrong and what to
    run; a search names the same rebuild in its incoherent_state error."""
    layout = StateLayout(served_copy)
    layout.graph.unlink()

    async def scenario(c):
        return await c("corpus_status", {}), await c("search_documents", {"query": "variance"})

    status, search = run_calls(served_copy, scenario, warm_up=False)
    assert not status.is_error
    report = status.structured_content
    assert report["coherent"] is False and report["documents"] == 3 and report["graph_counts"] == {}
    assert "entity graph is missing" in report["problem"] and report["rebuild"] == ["quant-rag ingest"]
    graph = next(i for i in report["indexes"] if i["name"] == "entity graph")
    assert graph["status"] == "missing" and graph["rebuild"] == "quant-rag ingest"
    error = assert_error(search, "incoherent_state", "entity graph")
    assert error["rebuild"] == report["rebuild"]
