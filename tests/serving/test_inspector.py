"""The MCP Inspector's CLI (the reference TypeScript SDK client) against the real server over stdio.

The TypeScript SDK's v1 client validates any structured content of a tool result against the
tool's output schema, errors included (src/client/index.ts, `callTool`): an error answer must be
one it reads as the server's error, not a schema failure. The Inspector is installed once with
npm into a folder under the temporary directory, kept across runs; the test is skipped only
where npm is absent.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.mcp_stdio import REPO

INSPECTOR = "@modelcontextprotocol/inspector"
INSPECTOR_VERSION = "1.0.3"  # the last v1 (v2 needs Node 22); v1 clients are the common case
SDK_VERSION = "1.32.2"  # the TypeScript SDK it runs, pinned so the validation under test is fixed
INSTALL_S = 600
CALL_S = 120
PASSED_ENV = ("QUANT_RAG_", "HF_", "TRANSFORMERS_", "SENTENCE_TRANSFORMERS_")
UNKNOWN_DOC, UNKNOWN_CHUNK = "doc-0000000000000000", "chunk-0000000000000000"
QUOTE = "a quote long enough to check"

# One wrong call per tool: (tool, arguments, the code the server answers)
WRONG_CALLS = [
    ("search_documents", {"query": "var", "limit": 1000}, "invalid_argument"),
    ("get_passage", {"chunk_id": UNKNOWN_CHUNK}, "not_found"),
    ("list_documents", {"limit": 0}, "invalid_argument"),
    ("timeline", {"query": "var", "document_id": UNKNOWN_DOC}, "not_found"),
    ("verify_citation", {"document_id": UNKNOWN_DOC, "quote": QUOTE}, "not_found"),
    ("verify_citations", {"evidence": {"session": "absent"}}, "not_found"),
    ("corpus_status", {"verbose": True}, "invalid_argument"),
    ("search_graph", {"query": "var", "entity_type": "planet"}, "invalid_argument"),
    ("expand_entity", {"entity_name": "value at risk", "limit": 0}, "invalid_argument"),
    ("connect_entities", {"entity_a": "VaR"}, "invalid_argument"),
    (
        "session_put",
        {"name": "bad name!", "kind": "scope", "value": {"year_min": 2010}, "provenance": "served"},
        "invalid_argument",
    ),
    ("session_get", {"name": "absent"}, "not_found"),
    ("session_list", {"limit": 5}, "invalid_argument"),
    ("session_delete", {"name": "bad name!"}, "invalid_argument"),
]


def _install(folder: Path, npm: str) -> None:
    staging = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=folder.parent))
    manifest = {
        "private": True,
        "dependencies": {INSPECTOR: INSPECTOR_VERSION},
        "overrides": {"@modelcontextprotocol/sdk": SDK_VERSION},
    }
    (staging / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=staging,
        capture_output=True,
        text=True,
        timeout=INSTALL_S,
    )
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise AssertionError(f"npm install {INSPECTOR}@{INSPECTOR_VERSION} failed:\n{done.stderr[-3000:]}")
    staging.rename(folder)


@pytest.fixture(scope="session")
def inspector() -> Path:
    """The Inspector's CLI entry point, installed once per version (a lock keeps two runs apart)."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("npm/node not installed: the MCP Inspector is an npm package")
    root = Path(tempfile.gettempdir()) / "quant-rag-inspector"
    root.mkdir(parents=True, exist_ok=True)
    folder = root / f"{INSPECTOR_VERSION}-sdk-{SDK_VERSION}"
    entry = folder / "node_modules" / ".bin" / "mcp-inspector"
    with open(root / "install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not entry.exists():
            with contextlib.suppress(FileNotFoundError):
                shutil.rmtree(folder)
            _install(folder, npm)
    return entry


def inspect(entry: Path, home: Path, *method: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of one Inspector CLI run against a fresh server on `home`."""
    passed = {k: v for k, v in os.environ.items() if k.startswith(PASSED_ENV)}
    env = {
        **passed,
        "QUANT_RAG_HOME": str(home),
        "HF_HUB_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
        "QUANT_RAG_WARM_UP": "0",
    }
    command = [str(entry), "--cli"] + [a for k, v in env.items() for a in ("-e", f"{k}={v}")]
    command += [sys.executable, "-m", "serving.server", *method]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=CALL_S)
    return done.returncode, done.stdout, done.stderr


def call_arguments(tool: str, arguments: dict) -> list[str]:
    """`--method tools/call` options; each value as JSON, which the CLI parses back."""
    options = ["--method", "tools/call", "--tool-name", tool]
    for key, value in arguments.items():
        options += ["--tool-arg", f"{key}={value if isinstance(value, str) else json.dumps(value)}"]
    return options


def test_the_inspector_lists_the_tools_and_searches(inspector, served_home):
    code, out, err = inspect(inspector, served_home, "--method", "tools/list")
    assert code == 0, err
    tools = json.loads(out)["tools"]
    assert len(tools) == 14 and all(t.get("outputSchema") for t in tools), [t["name"] for t in tools]
    # the client validates a success's structured content against the output schema it listed
    code, out, err = inspect(inspector, served_home, *call_arguments("search_documents", {"query": "value at risk"}))
    assert code == 0, err
    found = json.loads(out)
    assert not found.get("isError") and found["structuredContent"]["results"], out[:2000]


def test_the_inspector_sends_a_cooperative_search(inspector, served_home):
    """An agent's rephrasings and hypothetical passage reach the server through the CLI, and the
    answer says what was fused."""
    arguments = {
        "query": "How are tail losses estimated?",
        "alternatives": ["conditional value at risk from historical returns", "expected shortfall"],
        "hypothetical_passage": "Conditional value at risk averages the losses beyond the value at risk quantile.",
    }
    code, out, err = inspect(inspector, served_home, *call_arguments("search_documents", arguments))
    assert code == 0, err
    found = json.loads(out)
    assert not found.get("isError"), out[:2000]
    searched = found["structuredContent"]["searched_text"]
    assert [s["kind"] for s in searched] == ["question", "alternative", "alternative", "hypothetical"]
    assert found["structuredContent"]["results"] and abs(sum(s["share"] for s in searched) - 1) < 0.01


def test_the_inspector_reads_an_error_of_every_tool_as_the_servers_error(inspector, served_home):
    from serving.mcp.toolset import all_tools

    assert [tool for tool, _, _ in WRONG_CALLS] == [spec.name for spec in all_tools()]
    for tool, arguments, expected in WRONG_CALLS:
        code, out, err = inspect(inspector, served_home, *call_arguments(tool, arguments))
        assert code == 0 and "output schema" not in out + err, (tool, code, err[-2000:])
        answer = json.loads(out)
        assert answer["isError"] is True and "structuredContent" not in answer, (tool, out[:2000])
        error = json.loads(answer["content"][-1]["text"])["error"]
        assert error["code"] == expected and error["fields"] and error["next_call"], (tool, error)
        assert f"error ({expected})" in answer["content"][0]["text"], (tool, answer["content"][0])


def test_the_inspector_receives_a_formula_passage_as_a_png(inspector, state_copy):
    """The TypeScript client gets get_passage's page image as MCP image content beside the text
    (on a private copy: rendering writes the image cache into the state)."""
    import base64

    from corpus.config import ServedConfig
    from corpus.models import BlockKind
    from corpus.reading.page_images import MAX_IMAGE_BYTES
    from corpus.state.layout import StateLayout
    from serving.mcp.server import ServingContext

    reader = ServingContext(StateLayout(state_copy), ServedConfig()).engine.parts.reader
    formula = next(
        p
        for entry in reader.documents.values()
        if entry.source.format == "pdf"
        for p in reader.by_document[entry.document_id]
        if any(
            b.kind is BlockKind.formula and b.start < e and s < b.end for b in entry.parsed.blocks for s, e in p.ranges
        )
    )
    code, out, err = inspect(
        inspector,
        state_copy,
        *call_arguments("get_passage", {"chunk_id": formula.chunk_id, "neighbours": 0, "image": True}),
    )
    assert code == 0, err[-2000:]
    answer = json.loads(out)
    assert not answer.get("isError") and answer["structuredContent"]["page_image"]["available"], out[:2000]
    images = [c for c in answer["content"] if c["type"] == "image"]
    assert [c["type"] for c in answer["content"]][0] == "text" and len(images) >= 1, answer["content"]
    png = base64.b64decode(images[0]["data"])
    assert images[0]["mimeType"] == "image/png" and png[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(png) <= MAX_IMAGE_BYTES
