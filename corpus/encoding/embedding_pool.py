"""Passage batches embedded in worker processes, one per core, each loading the encoder once.

One process with two threads leaves a core idle through everything a batch does besides its matrix
products (tokenising, the model's Python, pooling, quantising and caching the token rows); two
processes of one thread each keep both cores on a batch of their own. Each worker builds the same
encoder the ingest would use in process (`corpus.encoding.onnx_export.passage_encoder`), so a
batch gives the vectors it gives there, and its token rows go to the same token cache (SQLite in
WAL mode takes both writers). The pool starts only for a large embedding call: a worker's start
(importing torch, loading the model) costs seconds.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from itertools import islice
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout

EMBED_WORKERS = 2  # the machine's two cores, one thread each
POOL_MIN_PIECES = 2_000  # below it, starting the workers costs more than they save
WORKER_THREADS = 1
IN_FLIGHT_PER_WORKER = 2  # batches queued per worker: enough to never idle, little memory

_encoder = None  # the worker's encoder, built once by `_start_worker`


def _start_worker(layout: StateLayout, config: ServedConfig, folder: Path, runtime: str) -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from corpus.encoding.onnx_export import passage_encoder

    global _encoder
    _encoder = passage_encoder(layout, config, folder, runtime, threads=WORKER_THREADS)


def _embed_batch(texts: list[str]) -> np.ndarray:
    if _encoder is None:
        raise RuntimeError("embedding worker used before its encoder was built")
    return _encoder.embed_texts(texts, batch_size=len(texts))


class EmbeddingPool:
    """EMBED_WORKERS processes embedding whole batches; `map_batches` yields their vectors in order.
    The workers start on the first call; `close` stops them."""

    def __init__(self, layout: StateLayout, config: ServedConfig, folder: Path, runtime: str, workers: int):
        self._arguments = (layout, config, folder, runtime)
        self.workers = workers
        self._executor: ProcessPoolExecutor | None = None

    def map_batches(self, batches: list[list[str]]) -> Iterator[np.ndarray]:
        """Each batch's vectors, in the order given (a bounded number in flight)."""
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=get_context("spawn"), initializer=_start_worker, initargs=self._arguments
            )
        waiting = iter(batches)
        pending = deque(
            self._executor.submit(_embed_batch, b) for b in islice(waiting, self.workers * IN_FLIGHT_PER_WORKER)
        )
        while pending:
            vectors = pending.popleft().result()
            following = next(waiting, None)
            if following is not None:
                pending.append(self._executor.submit(_embed_batch, following))
            yield vectors

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None


def pool_workers(cores: int | None = None) -> int:
    """Workers an embedding pool gets on this machine: EMBED_WORKERS, at most one per core; 0 on
    one core (embed in process)."""
    cores = len(os.sched_getaffinity(0)) if cores is None else cores
    return min(EMBED_WORKERS, cores) if cores > 1 else 0
