"""Indexes beside the vectors: BM25 (bm25s) over passages, the on-disk passage store for large
libraries, and the token index with its int8 MaxSim product for late-interaction scoring.
"""
