"""An `.npy` file written block by block, its row count known only at the end.

An index built from an iterator (the token index: one passage's rows at a time) would otherwise
hold every block and then their concatenation, twice its size in memory. The header is reserved
at the start and rewritten on close with the final shape, padded with spaces as the format allows
(numpy's `.npy` format, version 1.0: a Python literal dict, space-padded, newline-terminated, the
whole preamble a multiple of 64 bytes), so `np.load` (memory-mapped or not) reads it as any other.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType

import numpy as np

MAGIC = b"\x93NUMPY\x01\x00"
PREAMBLE = 128  # magic, header length and header: room for any shape of two dimensions


def _preamble(dtype: np.dtype, shape: tuple[int, ...]) -> bytes:
    header = repr({"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": shape})
    room = PREAMBLE - len(MAGIC) - 2
    if len(header) + 1 > room:
        raise ValueError(f"shape {shape} does not fit the reserved .npy header")
    return MAGIC + room.to_bytes(2, "little") + (header + " " * (room - len(header) - 1) + "\n").encode("latin1")


class NpyAppender:
    """Append C-ordered blocks of one dtype and row shape; `close` writes the final header.

    `with NpyAppender(path, np.int8, (384,)) as out: out.append(block)`; an exception inside the
    block leaves the file removed, never a file whose header lies about its rows."""

    def __init__(self, path: Path, dtype: np.dtype | type, row_shape: tuple[int, ...]) -> None:
        self.path, self.dtype, self.row_shape, self.rows = path, np.dtype(dtype), tuple(row_shape), 0
        self._file = open(path, "wb")  # noqa: SIM115 — closed by close() or __exit__
        self._file.write(_preamble(self.dtype, (0, *self.row_shape)))

    def append(self, block: np.ndarray) -> None:
        if block.dtype != self.dtype or block.shape[1:] != self.row_shape:
            raise ValueError(f"block {block.dtype} {block.shape} does not match {self.dtype} (n, *{self.row_shape})")
        self._file.write(np.ascontiguousarray(block).tobytes())
        self.rows += len(block)

    def close(self) -> None:
        self._file.seek(0)
        self._file.write(_preamble(self.dtype, (self.rows, *self.row_shape)))
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()

    def __enter__(self) -> NpyAppender:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if kind is None:
            self.close()
            return
        self._file.close()
        self.path.unlink(missing_ok=True)
