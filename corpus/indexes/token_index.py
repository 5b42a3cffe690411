"""Token index: every passage's contextual token vectors, for late-interaction (MaxSim) scoring.

The embedding model's last layer gives one vector per word-piece; a passage's pieces (the same
strings its passage vectors embed, title and section prefix included) are stacked into one matrix.
A question scores a passage by MaxSim (ColBERT's late interaction): each question token takes its
best cosine over the passage's tokens, and the passage scores the mean of those. Unlike one
pooled vector per passage, a question about one detail of a section is matched by that detail.

Stored once per (model key, corpus signature) under `StateLayout.token_indexes / <key>-<signature>/`:
`tokens.npy` int8 [T, dim] (each row L2-normalised, then scaled by its own max so that row × its
scale is the float row to within 1/254 of its largest component), `scales.npy` float32 [T], and
`index.json` (chunk id -> [first row, end row), signature, model key), and `product.onnx`, the
integer product that scores them (corpus.indexes.token_product). Written to a staging folder then renamed;
read memory-mapped, so a search touches only its candidates' rows.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Iterable, Mapping
from contextlib import ExitStack
from pathlib import Path

import numpy as np

from corpus.indexes.npy_stream import NpyAppender
from corpus.indexes.token_product import GRAPH_FILE, IntegerProduct, gather_shifted, write_product_graph
from corpus.state.layout import StateLayout, _fsync_dir, atomic_write_json, read_json

log = logging.getLogger(__name__)

TOKENS_FILE, SCALES_FILE, INDEX_FILE = "tokens.npy", "scales.npy", "index.json"
INT8_MAX = 127


def index_path(layout: StateLayout, model_key: str, signature: str) -> Path:
    return layout.token_indexes / f"{model_key}-{signature}"


def quantise_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int8 rows, float32 scale per row) with rows ≈ int8 × scale."""
    rows = np.asarray(rows, dtype=np.float32)
    scales = np.abs(rows).max(axis=1) / INT8_MAX if len(rows) else np.zeros(0, np.float32)
    safe = np.where(scales > 0, scales, 1.0)
    return np.round(rows / safe[:, None]).astype(np.int8), scales.astype(np.float32)


def write_token_index(
    path: Path, signature: str, model_key: str, passages: Iterable[tuple[str, np.ndarray, np.ndarray]]
) -> dict[str, int]:
    """Write (chunk id, int8 rows, scales) per passage into a new folder at `path` (atomically),
    streamed: memory holds one passage's rows, never the whole index."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f".{path.name}.{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    spans: dict[str, list[int]] = {}
    with ExitStack() as files:
        codes_out = scales_out = None
        for chunk_id, code, scale in passages:
            if codes_out is None:
                codes_out = files.enter_context(NpyAppender(staging / TOKENS_FILE, np.int8, code.shape[1:]))
                scales_out = files.enter_context(NpyAppender(staging / SCALES_FILE, np.float32, ()))
            spans[chunk_id] = [codes_out.rows, codes_out.rows + len(code)]
            codes_out.append(code)
            scales_out.append(scale)  # type: ignore[union-attr]  # opened with codes_out
    if not spans:
        np.save(staging / TOKENS_FILE, np.zeros((0, 0), np.int8))
        np.save(staging / SCALES_FILE, np.zeros(0, np.float32))
    write_product_graph(staging / GRAPH_FILE)
    atomic_write_json(staging / INDEX_FILE, {"signature": signature, "model_key": model_key, "chunks": spans})
    shutil.rmtree(path, ignore_errors=True)
    os.replace(staging, path)
    _fsync_dir(path.parent)
    return {"passages": len(spans), "tokens": sum(end - start for start, end in spans.values())}


class TokenIndex:
    """A written token index, memory-mapped; `maxsim` scores passages against question tokens."""

    def __init__(self, path: Path) -> None:
        meta = read_json(path / INDEX_FILE)
        self.path = path
        self.signature: str = meta["signature"]
        self.model_key: str = meta["model_key"]
        self.spans: dict[str, list[int]] = meta["chunks"]
        self.codes = np.load(path / TOKENS_FILE, mmap_mode="r")
        self.scales = np.load(path / SCALES_FILE, mmap_mode="r")
        # An index written before the integer product existed is scored in float32 (same ranking).
        graph = path / GRAPH_FILE
        self.product = IntegerProduct(graph) if graph.exists() else None

    @classmethod
    def for_state(cls, layout: StateLayout, model_key: str, signature: str | None) -> TokenIndex | None:
        """The index of `signature` for `model_key`, or None when it was not built."""
        if signature is None:
            return None
        path = index_path(layout, model_key, signature)
        return cls(path) if (path / INDEX_FILE).exists() else None

    def rows(self, chunk_id: str) -> np.ndarray:
        """The passage's token vectors as float32 (dequantised)."""
        start, end = self.spans[chunk_id]
        return self.codes[start:end].astype(np.float32) * self.scales[start:end, None]

    def best_per_token(
        self, question: np.ndarray, chunk_ids: list[str], scored: Mapping[str, np.ndarray] | None = None
    ) -> np.ndarray | None:
        """Each question token's best cosine over every token row of the indexed passages of
        `chunk_ids` (how well those passages cover it), or None when none is indexed. `scored`:
        each passage's row of `best_rows` for this question, when MaxSim already computed them
        (the same values: a maximum does not depend on the rows multiplied beside it)."""
        known = [c for c in chunk_ids if self.indexed(c)]
        if scored is not None and known and len(question) and all(c in scored for c in known):
            return np.max([scored[c] for c in known], axis=0)
        best = self._best(question, chunk_ids)
        return None if best is None else best[1].max(axis=0)

    def indexed(self, chunk_id: str) -> bool:
        """Whether the passage has token rows."""
        span = self.spans.get(chunk_id)
        return span is not None and span[1] > span[0]

    def maxsim(self, question: np.ndarray, chunk_ids: list[str]) -> dict[str, float]:
        """MaxSim of each indexed passage of `chunk_ids` for the question's token vectors
        (L2-normalised rows): the mean over question tokens of their best passage-token cosine."""
        best = self._best(question, chunk_ids)
        return {} if best is None else dict(zip(best[0], best[1].mean(axis=1).tolist()))

    def _best(self, question: np.ndarray, chunk_ids: list[str]) -> tuple[list[str], np.ndarray] | None:
        """(indexed chunk ids, [passages, question tokens] best cosine of each question token), or
        None when no candidate is indexed or the question has no token."""
        known = [c for c in chunk_ids if self.indexed(c)]
        if not known or not len(question):
            return None
        spans = [self.spans[c] for c in known]
        scales = np.concatenate([self.scales[a:b] for a, b in spans])
        starts = np.cumsum([0] + [b - a for a, b in spans[:-1]])
        best = self._integer_best(spans, scales, starts, question)
        if best is None:  # (codes × scale) · q = (codes · q) × scale: dequantise after the product
            codes = np.concatenate([self.codes[a:b] for a, b in spans])
            similarity = (codes.astype(np.float32) @ np.asarray(question, dtype=np.float32).T) * scales[:, None]
            best = np.maximum.reduceat(similarity, starts, axis=0)
        return known, best  # [passages, question tokens]

    def maxsim_groups(self, questions: list[np.ndarray], chunk_ids: list[str]) -> list[dict[str, float]]:
        """`maxsim` for several token matrices (a question and its rephrasings) in one product:
        the candidates' rows are gathered once and multiplied by all the columns together."""
        return self.best_rows(questions, chunk_ids)[0]

    def best_rows(
        self, questions: list[np.ndarray], chunk_ids: list[str]
    ) -> tuple[list[dict[str, float]], dict[str, np.ndarray]]:
        """(`maxsim_groups`, each indexed passage's best cosine per token of the first matrix,
        the rows `best_per_token` reduces): abstention's semantic coverage reads the question's
        top passages from them instead of multiplying their rows again. Only the integer product
        gives a column the same values whatever columns share its product, so without it the
        second part is empty."""
        if len(questions) == 1:
            best = self._best(questions[0], chunk_ids)
            if best is None:
                return [{}], {}
            known, matrix = best
            rows = dict(zip(known, matrix)) if self.product is not None else {}
            return [dict(zip(known, matrix.mean(axis=1).tolist()))], rows
        widths = [len(q) for q in questions]
        best = self._best(np.concatenate(questions), chunk_ids)
        if best is None:
            return [{} for _ in questions], {}
        known, matrix = best
        edges = np.cumsum([0] + widths)
        rows = dict(zip(known, matrix[:, : widths[0]])) if self.product is not None and widths[0] else {}
        return [
            dict(zip(known, matrix[:, a:b].mean(axis=1).tolist())) if b > a else {}
            for a, b in zip(edges[:-1], edges[1:])
        ], rows

    def open_product(self, threads: int = 1) -> None:
        """Open the integer product's session now, on `threads` threads (the server's warm-up
        calls this so the first search does not), or drop an unusable graph with a warning."""
        if self.product is None:
            return
        self.product.threads = threads
        try:
            self.product.session()
        except Exception as exc:  # noqa: BLE001
            self._drop_product(exc)

    def _drop_product(self, exc: Exception) -> None:
        log.warning("token index %s: integer product unusable (%s); scoring in float32", self.path, exc)
        self.product = None

    def _integer_best(
        self, spans: list, scales: np.ndarray, starts: np.ndarray, question: np.ndarray
    ) -> np.ndarray | None:
        """Each passage's best similarity per question token by the integer product, or None
        without a usable graph: one that cannot be opened or run (a damaged file) is dropped with
        a warning and the float product serves."""
        if self.product is None:
            return None
        try:
            return self.product.best(gather_shifted(self.codes, spans), scales, starts, question)
        except Exception as exc:  # noqa: BLE001 — a slower search beats a failed one
            self._drop_product(exc)
            return None
