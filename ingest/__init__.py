"""Everything the writer computes, without Dagster: source validation and registration, parsing,
chunking, metadata with provenance, overlays, graph extraction, integrity checks, the catalogue,
and the index builders (embed → vector index, BM25, signature record).

Called by the Dagster assets (assets/), by evaluation's scratch indexes and by test fixtures alike.
May import `corpus`, parsers and models; never dagster, mcp, assets or serving.
"""
