"""The reader side: the MCP stdio server over a published corpus state. Never imports dagster,
ingest, assets or orchestration.

Rooms from the ground up; a room imports only the top-level modules and the rooms before it
(tests/test_import_graph.py holds the order; each room's `__init__.py` says what it holds):
`coherence` (is the state servable, the command that rebuilds it), `periods/`, `citation/`,
`sessions/`, `answer/` (the output contract, models, builders and errors), `abstention/`,
`retrieval/` (parts, scope catalogue, the ranking engine), `toolkit/` (what the tools share,
the search use case), `tools/` (one module per tool), `mcp/` (server, transport, listing), then
`server` (the `python -m serving.server` entry) and `cli` (`quant-rag serve|search|verify|doctor`).
"""
