"""The corpus-level index builders over the stored passages, each keyed by the recorded signature:
passage embeddings (cached by passage hash and model key), the vector index, BM25, the token index,
the passage store, the entity graph (over ingest.graph_extract) and the DuckDB catalogue;
corpus_view lists the documents they index. Imports ingest.sources and ingest.passages."""
