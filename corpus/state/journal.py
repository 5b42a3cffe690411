"""Journal-first writes: an intent is recorded before the first write and closed after the last.

A kill -9 leaves an open intent; the next writer finds it and repairs (rolls the work forward,
which every stage makes idempotent) before doing anything new.
"""

from __future__ import annotations

import datetime as dt
import uuid
from pathlib import Path

from corpus.state.layout import StateLayout, atomic_write_json, read_json


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def open_intent(layout: StateLayout, action: str, document_ids: list[str], detail: dict | None = None) -> Path:
    """Record what is about to be done; returns the intent's path."""
    path = layout.journal / f"{_now().replace(':', '')}-{uuid.uuid4().hex[:8]}.json"
    atomic_write_json(
        path,
        {
            "action": action,
            "document_ids": sorted(document_ids),
            "detail": detail or {},
            "opened_at": _now(),
            "state": "open",
        },
    )
    return path


def close_intent(path: Path) -> None:
    """Mark an intent done (kept as history under journal/done)."""
    record = read_json(path)
    record.update(state="done", closed_at=_now())
    done = path.parent / "done" / path.name
    atomic_write_json(done, record)
    path.unlink(missing_ok=True)


def open_intents(layout: StateLayout) -> list[tuple[Path, dict]]:
    """Intents that were opened and never closed (a crash or kill), oldest first."""
    if not layout.journal.exists():
        return []
    return [(p, read_json(p)) for p in sorted(layout.journal.glob("*.json"))]


def writer_activity(layout: StateLayout) -> list[dict]:
    """Each open intent with whether its writer is still at work (`live`, `pid`) or was killed
    (the next writer repairs it); readers meanwhile serve the last published generation."""
    from corpus.state.lock import live_holder

    pid = live_holder(layout.lock_file)
    return [
        {
            "action": record.get("action"),
            "opened_at": record.get("opened_at"),
            "documents": len(record.get("document_ids", [])),
            "files": len(record.get("detail", {}).get("files", [])),
            "live": pid is not None,
            "pid": pid,
            "intent": path.name,
        }
        for path, record in open_intents(layout)
    ]
