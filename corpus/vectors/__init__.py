"""The vector store: one interface (`vector_store_base`) over Qdrant Edge, qdrant-client's local mode,
a Qdrant server and a read-only in-memory copy, plus opening for many readers and read-ahead.
"""
