"""One writer at a time: an advisory lock that dies with its holder.

`fcntl.flock` is released by the kernel when the holding process exits, even on kill -9, so a dead
holder never blocks the next writer; the holder's pid is written inside for error messages.
"""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


class WriterBusyError(RuntimeError):
    """Another live process holds the writer lock."""


@contextmanager
def writer_lock(path: Path) -> Iterator[None]:
    """Hold the exclusive writer lock on `path` for the duration of the block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
            raise WriterBusyError(f"another writer holds {path} (pid {holder}); retry when it ends") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock
