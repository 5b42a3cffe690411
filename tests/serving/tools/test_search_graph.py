"""search_graph: entities matching a query with the passages that mention them.

The served state's graph is made by the pipeline's vocabulary extractor, whose canonical name
for "value at risk" is "VaR" (ingest/graph_extract/vocabulary.tsv)."""

from __future__ import annotations

from mcp_stdio import assert_error, run_calls


def test_search_graph_over_stdio(served_home):
    async def scenario(c):
        found = (await c("search_graph", {"query": "value at risk"})).structured_content
        assert_error(
            await c("search_graph", {"query": "var", "entity_type": "planet"}), "invalid_argument", "entity_type"
        )
        return found

    found = run_calls(served_home, scenario, warm_up=False)
    assert found["results"] and found["entities"][0]["name"] == "VaR"


def test_no_relation_filter_is_offered_while_the_graph_holds_no_relation(served_home, context, invoke):
    """A filter whose every value answers nothing is not offered: the served graph (the default
    extractor) holds no typed relation, and neither graph tool takes a `relation` argument."""
    from serving.mcp.listing import tool_descriptor
    from serving.mcp.toolset import all_tools

    assert context.engine.parts.graph.counts()["relations"] == 0
    specs = {s.name: s for s in all_tools()}
    for name in ("search_graph", "expand_entity"):
        assert "relation" not in tool_descriptor(specs[name], context).input_schema["properties"]
    assert "relation" not in specs["search_graph"].describe(context)
    answer = invoke("search_graph", {"query": "variance", "relation": "measures"})
    assert answer.is_error and "relation" in answer.content[0].text
