"""The server's start path and first search never import torch, transformers or sentence-transformers;
until `initialize` is answered it imports neither the tool set nor the engine's dependencies."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "transformers", "sentence_transformers")
# Builds the MCP server as `python -m serving.server` does, then answers one search through the
# SDK's in-process client (request handling, our tool, result conversion) and reports what was
# imported.
PROBE = """
import sys, anyio
from mcp.client.client import Client
from serving.mcp.server import build_server
server, context = build_server()

async def first_search():
    async with Client(server) as client:
        return await client.call_tool("search_documents", {"query": "value at risk"})

result = anyio.run(first_search)
assert not result.is_error, result.content[0].text
assert result.structured_content["results"], "no result"
imported = sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[1:]))
print(type(context.engine.parts.embedder).__name__ + "|" + ",".join(imported))
"""


def probe(home: Path) -> list[str]:
    env = {
        **os.environ,
        "QUANT_RAG_HOME": str(home),
        "PYTHONPATH": str(REPO),
        "HF_HUB_OFFLINE": "1",
        "QUANT_RAG_WARM_UP": "0",
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *HEAVY], capture_output=True, text=True, env=env, cwd=str(REPO), timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()[-1].split("|")


def test_first_search_with_the_export_imports_no_torch(served_home):
    """served_home holds the export ingestion leaves (tests/serving/conftest.py)."""
    assert StateLayout(served_home).onnx_model(ServedConfig().model_key).exists()
    encoder, imported = probe(served_home)
    assert encoder == "TokenEncoder"  # the ONNX token graph: one session for vectors and tokens
    assert imported == "", f"imported on the start path: {imported}"


# What the server has imported when it can answer `initialize`: the SDK, the context, the prompt.
BEFORE_INITIALIZE = (
    "numpy",
    "scipy",
    "duckdb",
    "onnxruntime",
    "bm25s",
    "qdrant_edge",
    "torch",
    "serving.mcp.toolset",
    "serving.retrieval.engine",
    "serving.tools.search_documents",
    "corpus.graph.graph_store",
)
START = """
import sys
sys.modules.setdefault("numba", None)
from serving.mcp.server import build_server
server, context = build_server()
print(",".join(sorted(m for m in sys.argv[1:] if m in sys.modules)))
"""


def test_initialize_is_answered_before_the_engine_and_tools_are_imported(served_home):
    env = {**os.environ, "QUANT_RAG_HOME": str(served_home), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", START, *BEFORE_INITIALIZE],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(REPO),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "", f"imported before initialize: {done.stdout.strip()}"


def test_first_search_without_the_export_still_answers(unexported_home):
    """The probe can fail: without an export the fallback imports torch, and says so."""
    encoder, imported = probe(unexported_home)
    assert encoder == "QueryEncoder"
    assert "torch" in imported


BLAS_PROBE = """
import sys
from serving.mcp.process import single_threaded_blas
if sys.argv[1] == "serve":
    single_threaded_blas()  # what serve() does first
import numpy
from threadpoolctl import threadpool_info
print(max(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"))
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: BLAS has one thread anyway")
def test_the_server_scores_vectors_on_one_blas_thread_unless_told_otherwise():
    env = {
        k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    }
    env["PYTHONPATH"] = str(REPO)

    def threads(mode: str, **extra: str) -> int:
        out = subprocess.run(
            [sys.executable, "-c", BLAS_PROBE, mode],
            env={**env, **extra},
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return int(out.stdout.strip())

    assert threads("serve") == 1
    assert threads("plain") > 1  # numpy's own default on this machine
    assert threads("serve", OPENBLAS_NUM_THREADS="2") == 2  # an operator's setting wins


# What `serve()` imports of the SDK: its low-level server and stdio modules, not the client, the
# high-level server or an HTTP client that `import mcp` would bring.
LEAN = """
import sys
from serving.mcp.process import lean_sdk_imports
from serving.mcp.server import build_server
lean_sdk_imports()
server, context = build_server()
from serving.mcp.stdio import stdio_streams
import mcp.server.stdio
print(",".join(sorted(m for m in sys.argv[1:] if m in sys.modules)))
"""
SDK_EXTRAS = ("mcp.client", "mcp.client.session", "mcp.server.mcpserver", "httpx2")


def test_the_server_imports_the_sdk_without_its_client_or_high_level_server(served_home):
    env = {**os.environ, "QUANT_RAG_HOME": str(served_home), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", LEAN, *SDK_EXTRAS], capture_output=True, text=True, env=env, cwd=str(REPO), timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == ""
    plain = subprocess.run(
        [sys.executable, "-c", LEAN.replace("lean_sdk_imports()", "import mcp"), *SDK_EXTRAS],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(REPO),
        timeout=300,
    )
    assert plain.returncode == 0 and plain.stdout.strip() != ""  # the probe sees them when imported


# The warm-up's first step: bm25s without its optional scipy.sparse probe, and only during that import.
BM25S_PROBE = """
import sys
from serving.mcp.process import import_bm25s_without_scipy
import_bm25s_without_scipy()
import bm25s
loaded = "scipy.sparse" in sys.modules
import scipy.sparse  # a later import (the torch fallback's) still works
print(loaded, bm25s.SCIPY_AVAILABLE, scipy.sparse.csc_matrix.__name__)
"""


def test_the_warm_up_imports_bm25s_without_scipy_and_leaves_scipy_importable():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", BM25S_PROBE], capture_output=True, text=True, env=env, cwd=str(REPO), timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["False", "False", "csc_matrix"]
