"""A session fixture's state built once per test run, also when pytest-xdist runs several workers.

Without xdist this is a plain temporary folder. Under xdist every worker would otherwise ingest the
same slice again (a minute of CPU each): the first worker to ask builds it under the run's shared
temporary folder while holding a file lock; the others wait for it and then read the same folder.
The states are only read (tests that change one work on a copy) and readers of a published state
are safe together (shared flocks), so sharing a folder between workers changes nothing they see."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock


def build_once(tmp_path_factory, name: str, build: Callable[[Path], object]) -> Path:
    """The folder `name` after `build(folder)` has run once in this test run; returns it."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    shared = tmp_path_factory.getbasetemp().parent  # one per run, above the workers' own folders
    folder, built = shared / name, shared / f"{name}.built"
    with FileLock(str(shared / f"{name}.lock")):
        if not built.exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a worker that failed left behind
            folder.mkdir()
            build(folder)
            built.touch()
    return folder


def copy_state(source: Path, target: Path) -> Path:
    """A private copy of a state folder for a test that may damage or extend it.

    The exported model graphs (`models/`, ≈ 175 MB of the 185 MB fixture) are hard-linked, not
    copied: the product only ever replaces them whole (`os.replace`), so a copy that re-exports
    or deletes one leaves the shared file alone, and some fifty copies per run no longer fill a
    small CI disk (one run failed on `No space left on device`). The writer lock is not copied."""

    def copy(src: str, dst: str) -> str:
        if Path(src).relative_to(source).parts[0] == "models":
            try:
                os.link(src, dst)
                return dst
            except OSError:  # another file system, or links not allowed: copy instead
                pass
        return shutil.copy2(src, dst)

    shutil.copytree(source, target, ignore=shutil.ignore_patterns("writer.lock"), copy_function=copy)
    return target
