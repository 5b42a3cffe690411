"""A published state opened for reading: the published generation a reader must open, the reader of
documents, metadata, passages and canonical text, and rendered page regions of PDF documents.
"""
