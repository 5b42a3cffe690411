"""What the server process sets before anything heavy loads: BLAS threads, the MCP SDK's package
`__init__`s skipped, no numba, bm25s without scipy: called by `serving.mcp.server.serve` first thing (the
last by its warm-up thread)."""

from __future__ import annotations

import os
import sys
from types import ModuleType
from typing import cast

# One query's vector scoring is a small matrix-vector product: a second BLAS thread spins on a core
# another process may need and gains nothing: one thread halves the server's CPU per search and
# beside a busy process answers faster (docs/measurements.md, Serving).
# Read by numpy at its import, which the server defers until after `initialize`.
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def single_threaded_blas() -> None:
    """One BLAS thread in this process unless the operator chose otherwise (before numpy loads)."""
    for variable in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(variable, "1")


def _import_table() -> dict[str, ModuleType | None]:
    """sys.modules as the import system reads it: a None entry makes that import raise
    ModuleNotFoundError (documented; typeshed types every value as a module)."""
    return cast("dict[str, ModuleType | None]", sys.modules)


SDK_PACKAGES = ("mcp", "mcp.server")


def lean_sdk_imports() -> None:
    """Let the MCP SDK's server modules load without running its packages' `__init__`s.

    `import mcp` imports the SDK's client, its high-level server and an HTTP client (`mcp` and
    `mcp.server` re-export them); the low-level stdio server needs none of it, and the server
    process never imports a name from those two packages, only from their modules. Their
    `__init__`s are replaced by empty packages (same path, so every module still imports): a
    good part of the SDK's import time less before `initialize` is answered (docs/measurements.md,
    Serving).
    A process that already imported `mcp` keeps it as it is.
    """
    import importlib.util

    parent = None
    for name in SDK_PACKAGES:
        if name in sys.modules:
            return
        spec = importlib.util.find_spec(name)
        if spec is None or spec.submodule_search_locations is None:
            return
        package = importlib.util.module_from_spec(spec)  # created, never executed
        sys.modules[name] = package
        if parent is not None:
            setattr(parent, name.rsplit(".", 1)[1], package)
        parent = package


def without_numba() -> None:
    """bm25s imports numba whenever it is installed (a costly import) for a backend the
    server never uses (scores come from its numpy path); the server process never needs numba."""
    _import_table().setdefault("numba", None)


def import_bm25s_without_scipy() -> None:
    """Import bm25s with its optional `import scipy.sparse` failing: that import (numpy.f2py
    among its modules) is for a matrix backend this project never uses — its indexes are built and scored on
    bm25s's numpy backend. The block lasts for this import only, since a later import may need
    scipy.sparse for real (transformers does, on the torch fallback), so it must run while no other
    thread can import that: the warm-up's first step, while the main thread imports the MCP SDK and
    before `initialize` is answered (no tool call can run yet)."""
    if "bm25s" in sys.modules or "scipy.sparse" in sys.modules:
        return
    _import_table()["scipy.sparse"] = None
    try:
        import bm25s  # noqa: F401  (kept in sys.modules for corpus.indexes.bm25_store)
    finally:
        if sys.modules.get("scipy.sparse", False) is None:
            del sys.modules["scipy.sparse"]
