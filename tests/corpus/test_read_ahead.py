"""Read-ahead of in-place indexes: every file advised, in chunks, within the memory cap, and the
pages really land in the page cache (checked with mincore on a file evicted first)."""

from __future__ import annotations

import ctypes
import mmap
import os
import sys
import time

import pytest

from corpus.vectors.read_ahead import CHUNK_BYTES, read_ahead

pytestmark = pytest.mark.skipif(
    not hasattr(os, "posix_fadvise") or sys.platform != "linux", reason="posix_fadvise and mincore are Linux calls"
)


def resident_share(path) -> float:
    """Share of the file's pages in the page cache (mincore over a mapping nobody touches)."""
    libc = ctypes.CDLL(None, use_errno=True)
    page = mmap.PAGESIZE
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_COPY) as mapped:
        size = len(mapped)
        pages = (size + page - 1) // page
        vector = (ctypes.c_ubyte * pages)()
        address = ctypes.addressof(ctypes.c_char.from_buffer(mapped))
        assert libc.mincore(ctypes.c_void_p(address), ctypes.c_size_t(size), vector) == 0, ctypes.get_errno()
        del address
        return sum(v & 1 for v in vector) / pages


def evict(path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)  # dirty pages cannot be dropped
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


@pytest.fixture
def index(tmp_path):
    folder = tmp_path / "index"
    (folder / "segment").mkdir(parents=True)
    files = {folder / "segment" / "vectors.dat": int(2.5 * CHUNK_BYTES), folder / "links.bin": 12_345}
    for path, size in files.items():
        path.write_bytes(os.urandom(size))
    return folder, files


def test_every_file_under_the_folder_is_advised_and_lands_in_the_page_cache(index):
    folder, files = index
    big = folder / "segment" / "vectors.dat"
    evict(big)
    if resident_share(big) > 0.5:
        pytest.skip("this filesystem keeps files in memory (tmpfs): eviction cannot be observed")
    assert read_ahead(folder) == sum(files.values())
    deadline = time.monotonic() + 10  # the reads are asynchronous
    while resident_share(big) < 0.95 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert resident_share(big) > 0.95  # all of it: one advice over the whole file reads ~8 MiB (0.8)


def test_a_single_file_and_the_memory_cap(index):
    folder, files = index
    links = folder / "links.bin"
    assert read_ahead(links) == files[links]
    assert read_ahead(folder, limit_bytes=sum(files.values()) - 1) == 0  # over the cap: nothing asked


def test_a_file_renamed_away_while_listed_is_skipped(index, monkeypatch):
    """Qdrant Edge rewrites its JSON files by rename as a store opens: one listed but gone by the
    time its size is read counts nothing, and the rest is still advised."""
    from pathlib import Path

    folder, files = index
    ghost = folder / "edge_config.json"
    listed, is_file = Path.rglob, Path.is_file
    monkeypatch.setattr(Path, "rglob", lambda self, pattern: [*listed(self, pattern), ghost])
    monkeypatch.setattr(Path, "is_file", lambda self: self == ghost or is_file(self))
    assert read_ahead(folder) == sum(files.values())


def test_the_background_read_ahead_ends_quietly_when_its_folder_goes(tmp_path, caplog):
    """An old generation deleted by the next publish while it is read ahead: no traceback."""
    import logging

    from corpus.vectors.read_ahead import _read_ahead_quietly

    caplog.set_level(logging.DEBUG, logger="corpus.vectors.read_ahead")

    class Vanishing(type(tmp_path)):
        def rglob(self, pattern):
            raise FileNotFoundError(2, "No such file or directory", str(self))

    _read_ahead_quietly(Vanishing(tmp_path / "gone"))
    assert "read-ahead of" in caplog.text and "stopped" in caplog.text
