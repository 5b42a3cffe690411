"""Ask the kernel to read an index's files into the page cache before its first searches.

An index read in place — a large state's passage store (SQLite, read with pread) — otherwise reads
each page from the disk the first time a search touches it (docs/measurements.md, "The
1M-passage path"). POSIX_FADV_WILLNEED starts asynchronous reads: nothing is copied into the
process and its memory is not charged (the page cache is the kernel's). A memory-mapped index is
not read ahead: each page cached ahead is mapped into the process with the neighbour of any page
it touches, so its resident memory would grow with the whole file.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

log = logging.getLogger(__name__)

# Never ask for more than this share of physical memory per index: a larger one would only evict
# the pages other readers need.
MAX_SHARE_OF_MEMORY = 0.25
CHUNK_BYTES = 4 << 20  # one advice per chunk: Linux reads at most its read-ahead window per call


def memory_bytes() -> int:
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def _size(path: Path) -> int:
    """Bytes of `path`, 0 when it is gone: Qdrant Edge rewrites its small JSON files by rename as
    a store opens, so a file listed a moment ago may be missing for an instant."""
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def read_ahead(root: Path, limit_bytes: int | None = None) -> int:
    """Advise WILLNEED on `root` (a file, or every regular file under a folder); returns the bytes
    advised — 0 when the platform has no posix_fadvise or the files exceed `limit_bytes` (by
    default a quarter of physical memory). Blocks while the reads are queued."""
    if not hasattr(os, "posix_fadvise"):
        return 0
    files = [root] if root.is_file() else [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]
    limit = int(memory_bytes() * MAX_SHARE_OF_MEMORY) if limit_bytes is None else limit_bytes
    if sum(_size(p) for p in files) > limit:
        return 0
    advised = 0
    for path in files:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:  # replaced meanwhile: its successor is read on demand
            continue
        try:
            size = os.fstat(fd).st_size
            for offset in range(0, size, CHUNK_BYTES):
                os.posix_fadvise(fd, offset, min(CHUNK_BYTES, size - offset), os.POSIX_FADV_WILLNEED)
            advised += size
        finally:
            os.close(fd)
    return advised


def _read_ahead_quietly(root: Path) -> None:
    """read_ahead as a bonus: a folder removed while it is listed (an old generation deleted by
    the next publish) ends it without a traceback on the server's stderr."""
    try:
        read_ahead(root)
    except OSError as exc:
        log.debug("read-ahead of %s stopped: %s", root, exc)


def read_ahead_in_background(root: Path) -> None:
    """`read_ahead` in a daemon thread (queueing the reads of a large index takes a while), so
    the index opens meanwhile; a search that comes first reads what it needs itself."""
    threading.Thread(target=_read_ahead_quietly, args=(root,), daemon=True, name="read-ahead").start()
