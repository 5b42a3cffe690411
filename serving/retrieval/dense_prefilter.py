"""The unfiltered dense scan of an in-memory vector store, exactly, from an int8 prescore.

The scan multiplies every stored vector (float32) by the question: memory-bound, and after the
model the largest part of a search's CPU at tens of thousands of points. Here every point is first
prescored in int8 by the token index's integer product (corpus.indexes.token_product: a quarter of
the bytes, exact integer sums). A prescore is within a per-point bound of the float score (the
rounding of the point's int8 codes and of the question's 13-bit codes, plus the float product's
own rounding), so a point whose prescore plus bound is below the K-th best prescore minus bound
scores below K other points: the top K points are among the rest. Their float scores are computed
as the scan computes them, by the same BLAS product (a point's score does not depend on the rows
multiplied beside it once the rows fill blocks of four; a check at build compares every point
gathered this way against the full scan, and a difference disables the shortcut), then ranked by
corpus.vectors.vector_store_memory.best_chunks. When its last hit does not clear every excluded
point's bound, the full scan answers instead.
"""

from __future__ import annotations

import logging

import numpy as np

from corpus.indexes.token_index import quantise_rows
from corpus.indexes.token_product import LOW_STEPS, UINT8_OFFSET, IntegerProduct, quantise_question
from corpus.vectors.vector_store_base import PIECE_OVERFETCH
from corpus.vectors.vector_store_memory import MemoryVectorStore, best_chunks

log = logging.getLogger(__name__)

BLOCK = 16  # gathered rows padded to a multiple of this (BLAS kernels take rows in blocks of 4 or 8)
ROW_ROUNDING = 0.5 + 1e-5  # |stored - code × scale| in units of the scale (float32 division included)
QUESTION_ROUNDING = 1 / 128 + 1e-5  # |question - its 13-bit codes| in units of its scale (float32 division included)
PRODUCT_SLACK = 1e-4  # the float32 product's own rounding (unit vectors of up to ~1,500 dimensions)
DEPTH = 2  # points kept: DEPTH × best_chunks' first fetch (limit × PIECE_OVERFETCH)
PROBES = 3  # rankings the build checks against the full scan


class DensePrefilter:
    """`search(vector, limit)` = `store.search(vector, limit)` (no filter), computed over the
    points that can reach the top; None from `build` when the check fails."""

    def __init__(self, store: MemoryVectorStore, product: IntegerProduct) -> None:
        vectors = store.vectors
        codes, scales = quantise_rows(vectors)
        self.store, self.product = store, product
        self._rows = codes.view(np.uint8) ^ np.uint8(UINT8_OFFSET)
        self._scales = scales.astype(np.float64)
        self._row_bound = self._scales * ROW_ROUNDING
        self._code_bound = self._scales * np.abs(codes).sum(axis=1, dtype=np.int64) * QUESTION_ROUNDING
        self._body = len(vectors) - len(vectors) % BLOCK  # rows past it: the scan's last, partial block
        self.fallbacks = 0  # searches the full scan answered (the shortcut was not certain)

    @classmethod
    def build(cls, store: MemoryVectorStore, product: IntegerProduct) -> DensePrefilter | None:
        """The prefilter of `store`, or None (logged) when a check finds a point or a ranking that
        differs from the full scan's by a bit."""
        prefilter = cls(store, product)
        if not prefilter.agrees():
            log.info("dense prefilter disabled: this BLAS does not give gathered rows the scan's scores")
            return None
        return prefilter

    def agrees(self) -> bool:
        """Whether every point, gathered in a shuffled order, scores as in the full scan, and a
        few rankings (near a stored point, and of a random direction) are the scan's."""
        vectors = self.store.vectors
        if not len(vectors):
            return True
        rng = np.random.default_rng(0)
        probes = [vectors[i] for i in rng.choice(len(vectors), PROBES - 1)]
        probes.append(rng.standard_normal(self.store.dimension).astype(np.float32))
        query = self.store.unit_query(probes[-1])
        body = rng.permutation(self._body)
        padded = np.concatenate([body, np.zeros(-len(body) % BLOCK, dtype=body.dtype)])
        full = vectors @ query
        if not np.array_equal((vectors[padded] @ query)[: len(body)], full[body]):
            return False
        if not np.array_equal(self._exact(np.arange(self._body, len(vectors)), query), full[self._body :]):
            return False
        return all(self.search(p, 10) == self.store.search(p, 10) for p in probes)

    def search(self, vector: np.ndarray, limit: int) -> list[tuple[str, float]]:
        if limit <= 0 or not len(self._rows):
            return self.store.search(vector, limit)
        query = self.store.unit_query(vector)
        codes, scale = quantise_question(query[None, :])
        product = self.product.session().run(None, {"rows": self._rows, "question": codes})[0]
        joined = product[:, 0].astype(np.int64) * LOW_STEPS + product[:, 1]
        prescore = joined * (float(scale[0]) / LOW_STEPS) * self._scales
        bound = self._row_bound * float(np.abs(query).sum()) + self._code_bound * float(scale[0]) + PRODUCT_SLACK
        depth = DEPTH * limit * PIECE_OVERFETCH
        if depth >= len(prescore):
            return self.store.search(vector, limit)
        floor = np.partition(prescore - bound, len(prescore) - depth)[len(prescore) - depth]
        kept = np.flatnonzero(prescore + bound >= floor)  # every other point scores below `depth` of these
        found = best_chunks(self._exact(kept, query), self.store.chunk_index[kept], self.store.chunks, limit)
        if len(found) == limit and found[-1][1] >= floor:  # no excluded point reaches the last hit
            return found
        self.fallbacks += 1
        return self.store.search(vector, limit)

    def _exact(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """The full scan's float32 scores of `rows` (ascending): the rows of whole blocks gathered
        and padded to whole blocks, the scan's last partial block multiplied as the scan does."""
        vectors = self.store.vectors
        body, tail = rows[rows < self._body], rows[rows >= self._body]
        padded = np.concatenate([body, np.zeros(-len(body) % BLOCK, dtype=body.dtype)])
        scores = (vectors[padded] @ query)[: len(body)]
        if len(tail):
            scores = np.concatenate([scores, (vectors[self._body :] @ query)[tail - self._body]])
        return scores
