"""The entity graph: the mentions and typed relations an extractor hands over, and the DuckDB store
written once per build and read into memory by the server.
"""
