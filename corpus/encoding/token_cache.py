"""Token vectors cache: a piece's int8 token rows by (weights, exact piece text), like the vectors'
cache (corpus.encoding.embedding_cache), so re-indexing never recomputes an unchanged piece's tokens."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import closing

import numpy as np

from corpus.ids import sha256_hex
from corpus.indexes.token_index import quantise_rows
from corpus.state.layout import StateLayout

_SQLITE_PARAMS = 500
_BUSY_TIMEOUT_S = 60.0


class TokenCache:
    """int8 token rows and their scales by sha256(piece text), one SQLite file per weights key."""

    def __init__(self, layout: StateLayout, weights_key: str) -> None:
        self.path = layout.embedding_cache / f"{weights_key}.tokens.sqlite3"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as db, db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS tokens (key TEXT PRIMARY KEY, dim INTEGER NOT NULL,"
                " codes BLOB NOT NULL, scales BLOB NOT NULL)"
            )

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S)

    def get_many(self, texts: Sequence[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """{sha256(text): (int8 rows, scales)} for every text already cached."""
        keys = list(dict.fromkeys(sha256_hex(t) for t in texts))
        found = {}
        with closing(self._connect()) as db:
            for start in range(0, len(keys), _SQLITE_PARAMS):
                batch = keys[start : start + _SQLITE_PARAMS]
                query = f"SELECT key, dim, codes, scales FROM tokens WHERE key IN ({','.join('?' * len(batch))})"
                for key, dim, codes, scales in db.execute(query, batch):
                    found[key] = (np.frombuffer(codes, np.int8).reshape(-1, dim), np.frombuffer(scales, np.float32))
        return found

    def put_many(self, texts: Sequence[str], rows: Sequence[np.ndarray]) -> None:
        """Store each text's float token rows (quantised here)."""
        values = []
        for text, matrix in zip(texts, rows):
            codes, scales = quantise_rows(matrix)
            values.append((sha256_hex(text), codes.shape[1], codes.tobytes(), scales.tobytes()))
        with closing(self._connect()) as db, db:
            db.executemany("INSERT OR REPLACE INTO tokens VALUES (?, ?, ?, ?)", values)
