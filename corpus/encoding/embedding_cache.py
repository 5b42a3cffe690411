"""Persistent embedding cache: re-indexing never re-embeds a string it has embedded before.

Keyed by (model key, SHA-256 of the exact embedded string) — prefix line included, so a changed
title re-embeds, an unchanged passage does not. One SQLite file per model key under
`layout.embedding_cache` (WAL mode: per-document runs in several processes may write at once).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from corpus.ids import sha256_hex

if TYPE_CHECKING:
    from corpus.encoding.embedder import Embedder

_SQLITE_PARAMS = 500  # stays under SQLite's bound-parameter limit
_BUSY_TIMEOUT_S = 60.0


class EmbeddingCache:
    """float32 vectors by (model_key, sha256(text))."""

    def __init__(self, root: Path, model_key: str):
        self.path = Path(root) / f"{model_key}.sqlite3"
        self.model_key = model_key
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as db, db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S)

    def get_many(self, texts: Sequence[str]) -> dict[int, np.ndarray]:
        """{index in `texts`: vector} for every text already cached."""
        keys = [sha256_hex(text) for text in texts]
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(keys))
        with closing(self._connect()) as db:
            for start in range(0, len(unique), _SQLITE_PARAMS):
                batch = unique[start : start + _SQLITE_PARAMS]
                marks = ",".join("?" * len(batch))
                for key, blob in db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", batch):
                    found[key] = np.frombuffer(blob, dtype=np.float32).copy()
        return {i: found[key] for i, key in enumerate(keys) if key in found}

    def put_many(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Store one vector per text (row i of `vectors` belongs to texts[i])."""
        if len(texts) != len(vectors):
            raise ValueError(f"{len(texts)} texts but {len(vectors)} vectors")
        rows = [
            (sha256_hex(text), np.asarray(vector, dtype=np.float32).tobytes()) for text, vector in zip(texts, vectors)
        ]
        with closing(self._connect()) as db, db:
            db.executemany("INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)", rows)

    def __len__(self) -> int:
        with closing(self._connect()) as db:
            return db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]


def embed_with_cache(
    embedder: Embedder,
    cache: EmbeddingCache,
    texts: Sequence[str],
    batch_size: int = 32,
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """Vectors of `texts` in order; only strings missing from `cache` reach the model."""
    out = np.empty((len(texts), embedder.dimension), dtype=np.float32)
    cached = cache.get_many(texts)
    for i, vector in cached.items():
        out[i] = vector
    missing = list(dict.fromkeys(text for i, text in enumerate(texts) if i not in cached))
    if missing:
        fresh = embedder.embed_passages(missing, batch_size=batch_size, progress=progress)
        cache.put_many(missing, fresh)
        row_of = {text: row for row, text in enumerate(missing)}
        for i, text in enumerate(texts):
            if i not in cached:
                out[i] = fresh[row_of[text]]
    return out
