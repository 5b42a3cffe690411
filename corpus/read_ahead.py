"""Ask the kernel to read an index's files into the page cache before its first searches.

Indexes read in place — the HNSW generation (memory-mapped by Qdrant Edge) and the passage store
(SQLite) — otherwise read each page from the disk the first time a search touches it: at 100k
passages, with the state's pages evicted, a first pass over 60 questions took 6,801 major page
faults in the vector index alone, the second pass none. POSIX_FADV_WILLNEED starts asynchronous
reads: nothing is copied into the process and its memory is not charged (the page cache is the
kernel's).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

# Never ask for more than this share of physical memory per index: a larger one would only evict
# the pages other readers need.
MAX_SHARE_OF_MEMORY = 0.25
CHUNK_BYTES = 4 << 20  # one advice per 4 MiB: Linux reads at most its read-ahead window per call


def memory_bytes() -> int:
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def read_ahead(root: Path, limit_bytes: int | None = None) -> int:
    """Advise WILLNEED on `root` (a file, or every regular file under a folder); returns the bytes
    advised — 0 when the platform has no posix_fadvise or the files exceed `limit_bytes` (by
    default a quarter of physical memory). Blocks while the reads are queued."""
    if not hasattr(os, "posix_fadvise"):
        return 0
    files = [root] if root.is_file() else [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]
    limit = int(memory_bytes() * MAX_SHARE_OF_MEMORY) if limit_bytes is None else limit_bytes
    if sum(p.stat().st_size for p in files) > limit:
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


def read_ahead_in_background(root: Path) -> None:
    """`read_ahead` in a daemon thread (queueing 0.5 GB of reads takes ≈ 0.4 s), so the index
    opens meanwhile; a search that comes first reads what it needs itself."""
    threading.Thread(target=read_ahead, args=(root,), daemon=True, name="read-ahead").start()
