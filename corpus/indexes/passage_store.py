"""On-disk passages for large libraries: one SQLite file per corpus signature, read by id.

The in-memory reader (corpus.reading.reader) parses every passage of every document at start; at ~1M
passages that is minutes and gigabytes. The passage_store asset writes every served passage once
into `<served root>/passage_store/<signature>.sqlite` (written under a temporary name, then
renamed; never written again), and a reader of a large state looks passages up by chunk id or by
document instead. Keyed by the signature, which covers every passages file, so a store is either
the one for the state served or not used at all: it cannot be served stale.

Tables: passages(chunk_id PRIMARY KEY, document_id, ordinal, body = the Passage as JSON),
WITHOUT ROWID (the primary key is the table: one B-tree descent per lookup), an index on
(document_id, ordinal), and meta(signature, passages).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from corpus.models import Passage
from corpus.state.layout import StateLayout, _fsync_dir

FOLDER = "passage_store"
# A state of this many passages or more is "large": its passages are read from the store (below it
# the in-memory reader starts in well under a second; the store is built anyway, it costs little),
# the engine overlaps the dense half with BM25 (over fewer passages BM25 takes well under a
# millisecond and the hand-over to a thread costs more), its BM25 arrays are memory-mapped rather
# than read into the server's memory, and the server runs searches in a worker
# thread (tens of milliseconds or more: the event loop keeps answering pings and cancellations).
LARGE_STATE_PASSAGES = 50_000
CACHE = 4096  # passages kept parsed (search results, their neighbours)


def store_path(layout: StateLayout, signature: str) -> Path:
    return layout.served_root / FOLDER / f"{signature}.sqlite"


def write_passage_store(path: Path, signature: str, passages: Iterable[Passage]) -> int:
    """Write every passage to a new file at `path` (atomically); returns the passage count."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f".{path.name}.{os.getpid()}")
    staging.unlink(missing_ok=True)
    db = sqlite3.connect(staging)
    try:
        db.executescript(
            "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
            "CREATE TABLE passages (chunk_id TEXT PRIMARY KEY, document_id TEXT NOT NULL,"
            " ordinal INTEGER NOT NULL, body TEXT NOT NULL) WITHOUT ROWID;"
            "CREATE TABLE meta (signature TEXT NOT NULL, passages INTEGER NOT NULL);"
        )
        db.executemany(
            "INSERT INTO passages VALUES (?, ?, ?, ?)",
            ((p.chunk_id, p.document_id, p.ordinal, p.model_dump_json()) for p in passages),
        )
        count = db.execute("SELECT count(*) FROM passages").fetchone()[0]
        db.execute("CREATE INDEX by_document ON passages (document_id, ordinal)")
        db.execute("INSERT INTO meta VALUES (?, ?)", (signature, count))
        db.commit()
    finally:
        db.close()
    with open(staging, "rb+") as handle:
        os.fsync(handle.fileno())
    os.replace(staging, path)
    _fsync_dir(path.parent)
    return count


class PassageStore:
    """A read-only connection to one store; lookups are serialised (one connection, any thread)."""

    def __init__(self, path: Path):
        # immutable=1: the file never changes after its rename, so SQLite takes no lock at all.
        self.path = path
        self._db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, Passage] = OrderedDict()
        self.signature, self.count = self._db.execute("SELECT signature, passages FROM meta").fetchone()

    @classmethod
    def for_state(cls, layout: StateLayout, signature: str | None) -> PassageStore | None:
        """The state's store when it has one for `signature`, else None (read passages in memory)."""
        path = store_path(layout, signature) if signature else None
        if path is None or not path.exists():
            return None
        store = cls(path)
        return store if store.signature == signature else None

    def _rows(self, sql: str, args: tuple) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def _parsed(self, chunk_id: str, body: str) -> Passage:
        passage = self._cache.get(chunk_id)
        if passage is None:
            passage = self._cache[chunk_id] = Passage.model_validate_json(body)
            if len(self._cache) > CACHE:
                self._cache.popitem(last=False)
        return passage

    def get(self, chunk_id: str) -> Passage | None:
        if chunk_id in self._cache:
            return self._cache[chunk_id]
        rows = self._rows("SELECT body FROM passages WHERE chunk_id = ?", (chunk_id,))
        return self._parsed(chunk_id, rows[0][0]) if rows else None

    def of_document(self, document_id: str) -> list[Passage]:
        """In reading order. The ids come from the (document_id, ordinal) index alone; only the
        passages not already parsed are read (a get_passage re-reads its neighbours)."""
        ids = [
            row[0]
            for row in self._rows(
                "SELECT chunk_id FROM passages WHERE document_id = ? ORDER BY ordinal", (document_id,)
            )
        ]
        missing = [c for c in ids if c not in self._cache]
        bodies: dict[str, str] = {}
        if missing:
            marks = ",".join("?" * len(missing))
            bodies = dict(
                self._rows(f"SELECT chunk_id, body FROM passages WHERE chunk_id IN ({marks})", tuple(missing))
            )
        # _stored(): a cached passage can be evicted while this list is being parsed
        return [self._parsed(c, bodies[c]) if c in bodies else self._stored(c) for c in ids]

    def _stored(self, chunk_id: str) -> Passage:
        """A passage whose id was just read from this store, so it is there."""
        passage = self.get(chunk_id)
        if passage is None:
            raise KeyError(chunk_id)
        return passage

    def chunk_ids(self) -> list[str]:
        return [row[0] for row in self._rows("SELECT chunk_id FROM passages ORDER BY chunk_id", ())]

    def close(self) -> None:
        self._db.close()


class StoredPassages(Mapping):
    """chunk_id -> Passage over a store: the read-only dict API the reader's callers use."""

    def __init__(self, store: PassageStore):
        self._store = store

    def __getitem__(self, chunk_id: str) -> Passage:
        passage = self._store.get(chunk_id)
        if passage is None:
            raise KeyError(chunk_id)
        return passage

    def get(self, chunk_id, default=None):
        return self._store.get(chunk_id) or default

    def __contains__(self, chunk_id: object) -> bool:
        return isinstance(chunk_id, str) and self._store.get(chunk_id) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._store.chunk_ids())

    def __len__(self) -> int:
        return self._store.count


class StoredByDocument(Mapping):
    """document_id -> its passages in reading order, for the documents the reader serves."""

    def __init__(self, store: PassageStore, document_ids: Iterable[str]):
        self._store = store
        self._ids = list(document_ids)
        self._known = set(self._ids)

    def __getitem__(self, document_id: str) -> list[Passage]:
        if document_id not in self._known:
            raise KeyError(document_id)
        return self._store.of_document(document_id)

    def __contains__(self, document_id: object) -> bool:
        return document_id in self._known

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)
