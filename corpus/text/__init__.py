"""The document's text: canonical text and its blocks, normalisation and markup maps for citation
matching, where a text may be cut, the BM25 tokeniser and name folding.

Pure text functions; imports nothing from `corpus` but the top-level contracts.
"""
