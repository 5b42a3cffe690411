"""One writer at a time: an advisory lock that dies with its holder.

`fcntl.flock` is released by the kernel when the holding process exits, even on kill -9, so a dead
holder never blocks the next writer; the holder's pid is written inside for error messages. The lock
is re-entrant within a process: the CLI holds it around in-process Dagster runs whose steps take it too.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from corpus.state.layout import HOME_ENV

_held: dict[Path, int] = {}  # lock file -> depth, for this process
POLL_SECONDS = 0.2


class WriterBusyError(RuntimeError):
    """Another live process holds the writer lock."""


def _acquire(fd: int, path: Path, wait_seconds: float) -> None:
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
                raise WriterBusyError(
                    f"another writer (pid {holder}) holds the writer lock ({path.name} in "
                    f"the state directory, {HOME_ENV}); retry when it ends"
                ) from None
            time.sleep(POLL_SECONDS)


@contextmanager
def writer_lock(path: Path, wait_seconds: float = 0.0) -> Iterator[None]:
    """Hold the exclusive writer lock on `path` for the block, waiting up to `wait_seconds`."""
    path = path.resolve()
    if path in _held:
        _held[path] += 1
        try:
            yield
        finally:
            _held[path] -= 1
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _acquire(fd, path, wait_seconds)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        _held[path] = 1
        try:
            yield
        finally:
            del _held[path]
    finally:
        os.close(fd)  # closing the descriptor releases the flock


def live_holder(path: Path) -> int | None:
    """The pid last written into the lock file if that process is alive, else None. Read without
    touching the lock (a probe that took it, even briefly, could turn a starting writer away); a
    live pid with an open journal intent means a writer at work."""
    try:
        pid = int(path.read_text().strip() or 0)
    except (OSError, ValueError):
        return None
    if pid <= 0:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return pid  # alive, someone else's
    return pid
