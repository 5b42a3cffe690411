"""The corpus model shared by the writer (ingest, assets) and the reader (serving).

Never imports dagster or mcp; model and index libraries are imported lazily. The top level holds
what the rooms share: the data contracts (`models`), identifiers (`ids`), version strings
(`versions`) and the served configuration (`config`). The rooms, from the ground up:

- `text` — canonical text, normalisation and markup maps, safe cuts, the BM25 tokeniser, name folding;
- `model_folder` — what a local model folder declares: its content identity and its pooling;
- `state` — the state directory: layout and atomic writes, signature and its freeze, journal, lock, generations;
- `indexes` — BM25, the on-disk passage store, token vectors and their int8 MaxSim product;
- `vectors` — the vector store over Qdrant (Edge, local mode, server) and an in-memory copy for readers;
- `graph` — the entity graph (DuckDB) and what an extractor hands to it;
- `encoding` — the embedding model, its ONNX, int8 and bf16 encoders, query and token encoders, caches;
- `reading` — a published state opened for reading: documents, passages, page images.

A room imports only rooms listed before it (and the top-level modules); `tests/test_import_graph.py`
holds the table and checks every import statement against it.
"""
