"""The identity of a local model folder: what its files hold, not where they are.

A fine-tune of the same architecture has the same file names, sizes and config, so those alone
cannot tell two models apart; hashing gigabytes of weights at every start is too slow. The
fingerprint hashes config.json (and other small files) whole and, for each large file, its size
and SAMPLES evenly spaced windows of WINDOW bytes: a different training run changes every window.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

WHOLE_BELOW = 1 << 20  # files smaller than this are hashed whole (configs, tokenizers)
SAMPLES = 16
WINDOW = 64 << 10
SKIPPED = {".git", ".cache", "__pycache__"}


class ModelPathError(ValueError):
    """A configured model folder that does not exist (or is not a folder)."""


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and not SKIPPED.intersection(p.relative_to(folder).parts))


def _digest_file(path: Path, size: int, digest) -> None:
    with path.open("rb") as handle:
        if size < WHOLE_BELOW:
            digest.update(handle.read())
            return
        for index in range(SAMPLES):
            handle.seek((size - WINDOW) * index // (SAMPLES - 1))
            digest.update(handle.read(WINDOW))


@functools.lru_cache(maxsize=16)
def _fingerprint(folder: str, stamp: tuple) -> str:
    root = Path(folder)
    digest = hashlib.sha256()
    for path in _files(root):
        size = path.stat().st_size
        digest.update(f"{path.relative_to(root).as_posix()}\0{size}\0".encode())
        _digest_file(path, size, digest)
    return digest.hexdigest()[:16]


def weights_fingerprint(folder: str | os.PathLike, variable: str = "QUANT_RAG_EMBEDDING_PATH") -> str:
    """16 hex of the folder's content fingerprint (cached while no file changes size or mtime)."""
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise ModelPathError(f"{variable}={folder} is not an existing folder")
    stamp = tuple((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in _files(root))
    return _fingerprint(str(root.resolve()), stamp)
