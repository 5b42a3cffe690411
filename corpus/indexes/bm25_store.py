"""BM25 over passages (bm25s, Lucene variant), stored per corpus signature with a manifest.

Layout: `<folder>/<signature>/` holds bm25s's files, `rows.json` (chunk_id, document_id in index
order) and `manifest.json` (signature, doc count, k1, b, tokenizer version, sha256 of each file).
A build writes a temp folder and promotes it by rename; a load verifies the manifest first.

Scoring (bm25s "lucene"): idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)) and
score(q, d) = Σ_{t ∈ set(q)} idf(t) · tf / (tf + k1 · (1 - b + b · |d| / avgdl)); query terms
count once. Rows are stored sorted by chunk_id, so a stable sort breaks ties by chunk_id.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from corpus.ids import sha256_hex
from corpus.indexes.passage_store import LARGE_STATE_PASSAGES
from corpus.state.layout import _fsync_dir, atomic_write_json, read_json
from corpus.text.tokenize import Analyzer

MANIFEST = "manifest.json"
ROWS = "rows.json"
BM25_METHOD = "lucene"
REBUILD_HINT = "rebuild the bm25_index asset"


class StaleIndexError(RuntimeError):
    """The BM25 files on disk do not belong to the corpus state being served."""


def indexed_text(title: str | None, section: list[str], text: str) -> str:
    """What BM25 indexes for a passage: its document title, section path, then its text."""
    return "\n".join(part for part in (title or "", " > ".join(section), text) if part)


def _file_digests(folder: Path) -> dict[str, str]:
    return {p.name: sha256_hex(p.read_bytes()) for p in sorted(folder.iterdir()) if p.is_file() and p.name != MANIFEST}


def _index(rows: list[tuple[str, str, str]], k1: float, b: float, analyzer: Analyzer):
    import bm25s

    # bm25s sets its own logger to DEBUG at import ("Building index from tokens" on every build).
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    if not rows:
        raise ValueError("cannot build a BM25 index over zero passages")
    retriever = bm25s.BM25(k1=k1, b=b, method=BM25_METHOD)
    retriever.index([analyzer(text) for _, _, text in rows], show_progress=False)
    return retriever


def build_bm25(
    folder: Path, signature: str, rows: list[tuple[str, str, str]], k1: float, b: float, analyzer: Analyzer
) -> Path:
    """Index `rows` (chunk_id, document_id, indexed text) under folder/<signature>/; return it."""
    rows = sorted(rows, key=lambda row: row[0])
    retriever = _index(rows, k1, b, analyzer)
    folder.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=folder, prefix=f".{signature}."))
    try:
        retriever.save(str(staging))
        atomic_write_json(staging / ROWS, [[chunk_id, document_id] for chunk_id, document_id, _ in rows])
        atomic_write_json(
            staging / MANIFEST,
            {
                "signature": signature,
                "doc_count": len(rows),
                "k1": k1,
                "b": b,
                "method": BM25_METHOD,
                "analyzer": analyzer.name,
                "files": _file_digests(staging),
            },
        )
        _promote(staging, folder / signature)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return folder / signature


def _promote(staging: Path, target: Path) -> None:
    """Rename `staging` onto `target`; an older build of the same signature is moved aside first."""
    retired = None
    if target.exists():
        retired = target.with_name(f".{target.name}.retired.{os.getpid()}")
        os.replace(target, retired)
    os.replace(staging, target)
    _fsync_dir(target.parent)
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)


class BM25Index:
    """A loaded, verified BM25 index of one corpus signature."""

    def __init__(self, retriever, chunk_ids: list[str], document_ids: list[str], manifest: dict, analyzer: Analyzer):
        self._retriever = retriever
        self._analyzer = analyzer
        # Fixed-width bytes: a large state's ids are one array, not a million objects in the heap.
        self._chunk_ids = np.array(chunk_ids, dtype=np.bytes_)
        self._doc_codes_of = {d: i for i, d in enumerate(sorted(set(document_ids)))}
        self._doc_codes = np.array([self._doc_codes_of[d] for d in document_ids], dtype=np.int32)
        self.manifest = manifest
        self.signature: str = manifest["signature"]
        self.doc_count: int = manifest["doc_count"]
        self.k1: float = manifest["k1"]
        self.b: float = manifest["b"]

    @property
    def chunk_ids(self) -> list[str]:
        """The indexed chunk ids in row order: row i of `scores(query)` scores chunk_ids[i]."""
        return [c.decode() for c in self._chunk_ids.tolist()]

    def term_document_counts(self) -> tuple[dict[str, int], np.ndarray]:
        """The vocabulary (term -> column) and, per column, how many passages hold the term."""
        indptr = np.asarray(self._retriever.scores["indptr"])
        return self._retriever.vocab_dict, np.diff(indptr)

    @classmethod
    def in_memory(
        cls, rows: list[tuple[str, str, str]], k1: float, b: float, analyzer: Analyzer, signature: str
    ) -> BM25Index:
        """An index of `rows` that is never written (evaluation arms with another analyser)."""
        rows = sorted(rows, key=lambda row: row[0])
        manifest = {
            "signature": signature,
            "doc_count": len(rows),
            "k1": k1,
            "b": b,
            "method": BM25_METHOD,
            "analyzer": analyzer.name,
        }
        return cls(_index(rows, k1, b, analyzer), [r[0] for r in rows], [r[1] for r in rows], manifest, analyzer)

    @classmethod
    def load(
        cls,
        folder: Path,
        signature: str,
        analyzer: Analyzer,
        mmap: bool | None = None,
        k1: float | None = None,
        b: float | None = None,
    ) -> BM25Index:
        """Load folder/<signature>/ after checking its manifest; StaleIndexError names the fix.
        mmap: map bm25s's arrays instead of reading them; by default mapped for a large state, whose
        arrays would otherwise sit whole in the server's own memory (benchmarks/scale.py measures both).
        k1, b: the parameters the caller serves with (bm25s bakes them into the stored scores)."""
        import bm25s

        path = folder / signature
        if not (path / MANIFEST).exists():
            raise StaleIndexError(f"no BM25 index for corpus signature {signature} under {folder}: {REBUILD_HINT}")
        manifest = read_json(path / MANIFEST)
        problems = []
        if manifest.get("signature") != signature:
            problems.append(f"built for signature {manifest.get('signature')}, serving {signature}")
        if manifest.get("analyzer") != analyzer.name:
            problems.append(f"analyser {manifest.get('analyzer')} != {analyzer.name}")
        for name, wanted in (("k1", k1), ("b", b)):
            if wanted is not None and manifest.get(name) != wanted:
                problems.append(f"built with {name}={manifest.get(name)}, configured {name}={wanted}")
        if manifest.get("files") != _file_digests(path):
            problems.append("index files differ from the sha256 recorded in the manifest")
        if problems:
            raise StaleIndexError(f"BM25 index at {path} is stale ({'; '.join(problems)}): {REBUILD_HINT}")
        rows = read_json(path / ROWS)
        if len(rows) != manifest["doc_count"]:
            raise StaleIndexError(
                f"BM25 index at {path} holds {len(rows)} rows, manifest says {manifest['doc_count']}: {REBUILD_HINT}"
            )
        if mmap is None:
            mmap = manifest["doc_count"] >= LARGE_STATE_PASSAGES
        retriever = bm25s.BM25.load(str(path), mmap=mmap)
        return cls(retriever, [r[0] for r in rows], [r[1] for r in rows], manifest, analyzer)

    def _terms(self, query: str) -> list[int]:
        """The query's known terms, each once, in query order (the order bm25s sums them in)."""
        return self._retriever.get_tokens_ids(list(dict.fromkeys(self._analyzer(query))))

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every indexed passage for `query` (index order = chunk_id order)."""
        token_ids = self._terms(query)
        if not token_ids:
            return np.zeros(self.doc_count, dtype=np.float32)
        return np.asarray(self._retriever.get_scores(token_ids), dtype=np.float32)

    def search(self, query: str, k: int, document_ids: set[str] | None = None) -> list[tuple[str, float]]:
        """Top-k (chunk_id, score) with score > 0, restricted to `document_ids` before ranking."""
        scores = self.scores(query)
        if document_ids is None:
            rows = top_k(scores, k)
        else:  # rank the rows in scope only: partitioning a large state's scores, mostly zero, is slow
            allowed = np.zeros(len(self._doc_codes_of), dtype=bool)
            allowed[[self._doc_codes_of[d] for d in document_ids if d in self._doc_codes_of]] = True
            in_scope = np.flatnonzero(allowed[self._doc_codes])
            rows = in_scope[top_k(scores[in_scope], k)]  # ascending rows: ties still break by row
        ids = self._chunk_ids[rows].tolist()
        return [(c.decode(), float(s)) for c, s in zip(ids, scores[rows].tolist())]


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Rows of the k best scores > 0, best first, ties by row: the first k of a stable sort of
    every row scoring > 0, without sorting them all (in a large state a common word scores nearly
    every row). The k-th best score is found by partition; only the rows scoring at least that
    much are sorted (docs/measurements.md, "The 1M-passage path")."""
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    floor = np.partition(scores, len(scores) - k)[len(scores) - k] if len(scores) > k else 0.0
    rows = np.flatnonzero(scores >= floor) if floor > 0 else np.flatnonzero(scores > 0)
    return rows[np.argsort(-scores[rows], kind="stable")][:k]
