"""timeline: best passage per document grouped by year, undated documents last."""

from __future__ import annotations

from mcp_stdio import run_calls


def test_timeline_over_stdio(served_home):
    async def scenario(c):
        return (await c("timeline", {"query": "variance"})).structured_content

    timeline = run_calls(served_home, scenario)
    assert timeline["years"][-1]["year"] is None or all(g["year"] is not None for g in timeline["years"])


def test_one_entry_per_document_even_when_the_limit_exceeds_the_documents(invoke, context):
    """The selection's fill step tops a small scope up with a document's further passages; a
    timeline keeps one passage per document whatever the limit."""
    answer = invoke("timeline", {"query": "variance", "limit": 8}).structured_content
    documents = [e["document_id"] for g in answer["years"] for e in g["entries"]]
    assert len(documents) == len(set(documents)) == len(context.engine.parts.reader.documents)
    assert f"document_id={documents[0]}" in invoke("timeline", {"query": "variance"}).content[0].text
