"""Generations of an embedded store: the writer never touches the folder a server has open.

An embedded Qdrant store is held by one process at a time. The writer copies the current
generation, updates the copy, and promotes it by atomically rewriting the CURRENT pointer; a
running server keeps serving the generation it opened until it restarts. The previous generation
is kept (a server may still hold it); older ones are deleted.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from corpus.state import atomic_write_json, read_json

POINTER = "CURRENT"
PREFIX = "g"


def _number(name: str) -> int:
    return int(name[len(PREFIX):]) if name.startswith(PREFIX) and name[len(PREFIX):].isdigit() else -1


def current_generation(root: Path) -> Path:
    """The folder the CURRENT pointer names (g0 when nothing was promoted yet)."""
    pointer = root / POINTER
    return root / (read_json(pointer)["generation"] if pointer.exists() else f"{PREFIX}0")


def begin_generation(root: Path) -> Path:
    """A fresh copy of the current generation, numbered after every existing one."""
    current = current_generation(root)
    existing = [_number(p.name) for p in root.glob(f"{PREFIX}*")] if root.exists() else []
    target = root / f"{PREFIX}{max([_number(current.name), *existing]) + 1}"
    shutil.rmtree(target, ignore_errors=True)
    if current.exists():
        shutil.copytree(current, target, ignore=shutil.ignore_patterns("*.lock", ".lock"))
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
    return target


def promote_generation(root: Path, folder: Path) -> None:
    """Point CURRENT at `folder`; keep the one it replaces, delete the rest."""
    previous = current_generation(root)
    atomic_write_json(root / POINTER, {"generation": folder.name})
    for path in root.glob(f"{PREFIX}*"):
        if path.is_dir() and path.name not in (folder.name, previous.name):
            shutil.rmtree(path, ignore_errors=True)
