"""Generations of an embedded store: the writer never touches the folder a server has open.

An embedded Qdrant store is held by one process at a time. The writer copies the current
generation, updates the copy, and promotes it by atomically rewriting the CURRENT pointer; a
running server keeps serving the generation it opened until it restarts. The previous generation
is kept (a reader of a state read in place may be loading it); older ones are deleted. Once a
state is published (corpus.reading.published), readers open only published folders, which hard-link the
generation they serve, so publishing deletes the previous one here too; the same pointer mechanism
names the current published generation.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from corpus.state.layout import atomic_write_json, read_json

POINTER = "CURRENT"
PREFIX = "g"


def _number(name: str) -> int:
    return int(name[len(PREFIX) :]) if name.startswith(PREFIX) and name[len(PREFIX) :].isdigit() else -1


def pointed_generation(root: Path) -> Path | None:
    """The folder the CURRENT pointer names; None when nothing was promoted yet."""
    pointer = root / POINTER
    return root / read_json(pointer)["generation"] if pointer.exists() else None


def current_generation(root: Path) -> Path:
    """The folder the CURRENT pointer names (g0 when nothing was promoted yet)."""
    return pointed_generation(root) or root / f"{PREFIX}0"


def next_generation(root: Path) -> Path:
    """A generation folder (not created) numbered after the current one and every existing one."""
    existing = [_number(p.name) for p in root.glob(f"{PREFIX}*")] if root.exists() else []
    return root / f"{PREFIX}{max([_number(current_generation(root).name), *existing]) + 1}"


def begin_generation(root: Path) -> Path:
    """A fresh copy of the current generation, numbered after every existing one."""
    current = current_generation(root)
    target = next_generation(root)
    shutil.rmtree(target, ignore_errors=True)
    if current.exists():
        shutil.copytree(current, target, ignore=shutil.ignore_patterns("*.lock", ".lock"))
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
    return target


def point_at(root: Path, folder: Path, **detail) -> None:
    """Switch CURRENT to `folder` with one atomic rename (readers see the old or the new one)."""
    atomic_write_json(root / POINTER, {"generation": folder.name, **detail})


def promote_generation(root: Path, folder: Path) -> None:
    """Point CURRENT at `folder`; keep the one it replaces, delete the rest."""
    previous = current_generation(root)
    point_at(root, folder)
    for path in root.glob(f"{PREFIX}*"):
        if path.is_dir() and path.name not in (folder.name, previous.name):
            shutil.rmtree(path, ignore_errors=True)
