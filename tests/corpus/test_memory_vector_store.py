"""The in-memory vector reader's read-only views of its arrays (what benchmarks sample queries from)."""

from __future__ import annotations

import numpy as np

from corpus.vectors.vector_store_memory import NO_YEAR, MemoryVectorStore, PointRecord, to_arrays


def test_vectors_and_years_are_the_stored_rows_unit_length():
    records = [
        PointRecord("chunk-a", "doc-a", 0, 2001, [3.0, 4.0]),
        PointRecord("chunk-b", "doc-b", 0, None, [0.0, 2.0]),
    ]
    store = MemoryVectorStore(to_arrays(records, 2), 2, {}, "edge", "test")
    assert np.allclose(store.vectors, [[0.6, 0.8], [0.0, 1.0]])
    assert store.years.tolist() == [2001, NO_YEAR]
    assert store.vectors.shape[0] == store.count_points() == len(store.years)
    # The rows searched are the rows shown: the best match of a stored vector is its own chunk.
    assert store.search(store.vectors[1], 1)[0][0] == "chunk-b"
