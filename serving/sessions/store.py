"""Session store (docs/DESIGN.md §7): named, validated objects kept for later calls in this process.

The kinds of value an entry holds are in serving.sessions.kinds. Every entry records where its
content came from; there is no provenance for recalled or invented content. Least-recently-used
eviction beyond QUANT_RAG_SESSION_MAX_ITEMS entries (default 64) or beyond MAX_TOTAL_BYTES of
values; a value over MAX_VALUE_BYTES is refused. Sizes are the UTF-8 bytes of the value's compact
JSON.
"""

from __future__ import annotations

import builtins
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal, TypeGuard, get_args

from pydantic import BaseModel, Field, ValidationError

from serving.sessions.kinds import KIND_MODELS, VALID_CALLS, Evidence, Kind, StoredScope, value_size

MAX_ITEMS_ENV = "QUANT_RAG_SESSION_MAX_ITEMS"
DEFAULT_MAX_ITEMS = 64
# The store's memory bound, in bytes of compact JSON: one value may hold 500 quotes of 5,000
# ASCII characters; all values together stay a few tens of MB of server memory.
MAX_VALUE_BYTES = 3_000_000
MAX_TOTAL_BYTES = 16_000_000
NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")

SessionProvenance = Literal["served", "user_pasted", "user_file", "session", "derived_from_question"]
PROVENANCE_HELP = (
    "served (copied from this server's output), user_pasted, user_file, session "
    "(derived from another entry), or derived_from_question (read from the user's "
    "question, e.g. a year range or an author it names)"
)


class SessionError(ValueError):
    """A session request that cannot be honoured; the message says why and what is accepted."""


class SessionEntry(BaseModel):
    name: str
    kind: Kind
    value: StoredScope | Evidence
    provenance: SessionProvenance
    created_at: str
    size: int = Field(description="Ids, authors and year bounds, or quotes, held.")
    bytes: int = Field(description="UTF-8 bytes of the value as compact JSON.")


class SessionSummary(BaseModel):
    """What a listing shows of an entry: never its value."""

    name: str
    kind: Kind
    provenance: SessionProvenance
    created_at: str
    size: int = Field(description="Ids, authors and year bounds, or quotes, held.")
    bytes: int = Field(description="UTF-8 bytes of the value as compact JSON.")

    @classmethod
    def of(cls, entry: SessionEntry) -> SessionSummary:
        return cls(**entry.model_dump(exclude={"value"}))


def _is_kind(kind: str) -> TypeGuard[Kind]:
    return kind in KIND_MODELS


def _is_provenance(provenance: str) -> TypeGuard[SessionProvenance]:
    return provenance in get_args(SessionProvenance)


def _coerce(kind: str, value: Any) -> StoredScope | Evidence:
    """Validate `value` for `kind`; evidence may be given as a bare list of items."""
    model = KIND_MODELS[kind]
    if isinstance(value, model):
        return value
    if kind == "evidence" and isinstance(value, list):
        value = {"items": value}
    if not isinstance(value, Mapping):
        raise SessionError(f"value of a {kind!r} entry must be an object or a list, got {type(value).__name__}")
    try:
        return model.model_validate(dict(value))
    except ValidationError as exc:
        problems = "; ".join(f"{_where(e['loc']) or kind}: {e['msg']}" for e in exc.errors())
        raise SessionError(f"invalid {kind!r} value: {problems}; a valid call: {VALID_CALLS[kind]}") from None


def _where(loc: tuple) -> str:
    """'items.3.quote' reads 'item 3 (items.3.quote)': which item, and which field of it."""
    path = ".".join(map(str, loc))
    return f"item {loc[1]} ({path})" if len(loc) > 1 and loc[0] == "items" else path


def max_items_from_env() -> int:
    raw = os.environ.get(MAX_ITEMS_ENV, "")
    if not raw.strip():
        return DEFAULT_MAX_ITEMS
    if not raw.strip().isdigit() or int(raw) < 1:
        raise SessionError(f"{MAX_ITEMS_ENV} must be a positive integer, got {raw!r}")
    return int(raw)


class SessionStore:
    """In-memory, per process, least-recently-used eviction; safe to share between threads."""

    def __init__(self, max_items: int | None = None) -> None:
        self.max_items = max_items_from_env() if max_items is None else max_items
        if self.max_items < 1:
            raise SessionError(f"max_items must be >= 1, got {self.max_items}")
        self._entries: OrderedDict[str, SessionEntry] = OrderedDict()
        self._lock = threading.Lock()
        self._bytes = 0
        self._evicted: list[str] = []  # names dropped by the last put

    @property
    def evicted(self) -> list[str]:
        """Names dropped by the last put (tools use `store`'s own answer, which no other thread's
        put can overwrite in between)."""
        with self._lock:
            return list(self._evicted)

    @property
    def total_bytes(self) -> int:
        with self._lock:
            return self._bytes

    @staticmethod
    def _check_name(name: object) -> str:
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise SessionError(f"invalid session name {str(name)[:80]!r}: use 1-64 of A-Z a-z 0-9 _ . -")
        return name

    def put(self, name: str, kind: str, value: Any, provenance: str) -> SessionEntry:
        """Store (or replace) an entry; it becomes the most recently used."""
        return self.store(name, kind, value, provenance)[0]

    def store(self, name: str, kind: str, value: Any, provenance: str) -> tuple[SessionEntry, list[str]]:
        """Store (or replace) an entry; return it with the names evicted to make room."""
        self._check_name(name)
        if not _is_kind(kind):
            raise SessionError(f"unknown kind {kind!r}: expected one of {', '.join(KIND_MODELS)}")
        if not _is_provenance(provenance):
            raise SessionError(
                f"unknown provenance {provenance!r}: expected {PROVENANCE_HELP}; recalled or invented content has none"
            )
        checked = _coerce(kind, value)
        size_bytes = len(checked.model_dump_json().encode("utf-8"))
        if size_bytes > MAX_VALUE_BYTES:
            raise SessionError(
                f"value of {size_bytes} bytes is over the {MAX_VALUE_BYTES}-byte "
                "limit of one entry: store fewer or shorter items"
            )
        entry = SessionEntry(
            name=name,
            kind=kind,
            value=checked,
            provenance=provenance,
            created_at=datetime.now(UTC).isoformat(timespec="seconds"),
            size=value_size(checked),
            bytes=size_bytes,
        )
        with self._lock:
            replaced = self._entries.pop(name, None)
            self._bytes -= replaced.bytes if replaced else 0
            self._entries[name] = entry
            self._bytes += entry.bytes
            evicted = []
            while len(self._entries) > self.max_items or (self._bytes > MAX_TOTAL_BYTES and len(self._entries) > 1):
                old = self._entries.popitem(last=False)[1]
                self._bytes -= old.bytes
                evicted.append(old.name)
            self._evicted = evicted
        return entry, list(evicted)

    def get(self, name: str, kind: str | None = None) -> SessionEntry:
        """The entry named `name` (marked as recently used); SessionError if absent or of another kind."""
        self._check_name(name)
        with self._lock:
            entry = self._entries.get(name)
            if entry is None:
                known = ", ".join(self._entries) or "none"
                raise SessionError(f"no session entry named {name!r} (entries: {known})")
            self._entries.move_to_end(name)
        if kind is not None and entry.kind != kind:
            raise SessionError(f"session entry {name!r} is a {entry.kind!r}, not a {kind!r}")
        return entry

    def resolve(self, reference: Mapping[str, Any], kind: str) -> SessionEntry:
        """Entry for a `{"session": "name"}` reference of the expected kind."""
        if not isinstance(reference, Mapping) or set(reference) != {"session"}:
            raise SessionError('a session reference is {"session": "<name>"} and nothing else')
        return self.get(reference["session"], kind)

    def list(self) -> list[SessionEntry]:
        """All entries, most recently used first (listing does not change the order)."""
        with self._lock:
            return list(reversed(self._entries.values()))

    def delete(self, name: str) -> bool:
        """Remove an entry; False when there was none."""
        self._check_name(name)
        with self._lock:
            entry = self._entries.pop(name, None)
            self._bytes -= entry.bytes if entry else 0
            return entry is not None

    def summaries(self) -> builtins.list[SessionSummary]:  # `list` here is the method above
        """Names, kinds, sizes and provenance of all entries, most recently used first."""
        return [SessionSummary.of(entry) for entry in self.list()]

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
