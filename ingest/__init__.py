"""Everything the writer computes, without Dagster, in rooms from the ground up (each room's
`__init__.py` says what it holds; tests/ingest/test_rooms.py holds the order):

parsing/ (sources into canonical text and blocks) · graph_extract/ (entity mentions and relations) ·
sources/ (what comes in: intake, registration, set-aside, removal) · passages/ (the per-document
stages: parse, chunk, roles, metadata, integrity, overlays) · indexes/ (embeddings and the index
builders) · publication/ (signature, checks, publish, a benchmark's state).

Called by the Dagster assets (assets/), by evaluation and by test fixtures alike. May import
`corpus`, parsers and models; never dagster, mcp, assets or serving.
"""
