"""search_graph: entities matching a query with the passages that mention them.

The served state's graph is made by the pipeline's vocabulary extractor, whose canonical name
for "value at risk" is "VaR" (ingest/graph_extract/vocabulary.tsv)."""

from __future__ import annotations

from mcp_stdio import assert_error, run_calls


def test_search_graph_over_stdio(served_home):
    async def scenario(c):
        found = (await c("search_graph", {"query": "value at risk"})).structured_content
        assert_error(await c("search_graph", {"query": "var", "entity_type": "planet"}),
                     "invalid_argument", "entity_type")
        return found

    found = run_calls(served_home, scenario, warm_up=False)
    assert found["results"] and found["entities"][0]["name"] == "VaR"
