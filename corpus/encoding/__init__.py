"""Turning text into vectors: the embedding model (which model, loaded how), its ONNX export, fusions
and int8 graph, bf16 passage embedding, the server's torch-free query and token encoders, and the
caches that keep re-indexing from re-embedding a string it has embedded before.

torch and sentence-transformers are imported only at ingest time; the server runs ONNX Runtime.
"""
