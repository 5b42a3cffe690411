"""The server's stdio transport (serving/mcp/stdio.py): no worker threads, the same wire as the SDK's.
Driven by the SDK's stdio client against real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.mcp_stdio import assert_error, run_calls

REPO = Path(__file__).resolve().parents[2]
STRAY = "stray output from a library"
# A one-tool server on serving.mcp.stdio whose tool prints to stdout, as a careless library would.
NOISY_SERVER = f"""
import os, anyio
from mcp.server.lowlevel.server import Server
from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool
from serving.mcp.stdio import stdio_streams

async def list_tools(ctx, params):
    return ListToolsResult(tools=[Tool(name="noisy", input_schema={{"type": "object"}})])

async def call(ctx, params):
    print({STRAY!r}, flush=True)
    os.write(1, b"{STRAY} (fd 1)\\n")
    return CallToolResult(content=[TextContent(type="text", text="answered")])

async def main():
    server = Server("noisy", on_list_tools=list_tools, on_call_tool=call)
    async with stdio_streams() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""


def test_a_stray_print_goes_to_stderr_not_onto_the_wire(tmp_path):
    params = StdioServerParameters(
        command=sys.executable, args=["-c", NOISY_SERVER], env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=str(REPO)
    )
    errlog_path = tmp_path / "stderr.txt"

    async def main():
        with errlog_path.open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    first = await session.call_tool("noisy", {})
                    second = await session.call_tool("noisy", {})  # the wire is still clean
                    return first, second

    first, second = anyio.run(main)
    assert [r.content[0].text for r in (first, second)] == ["answered", "answered"]
    assert errlog_path.read_text().count(STRAY) == 4


def test_a_request_line_over_64_kib_is_answered(served_home):
    """asyncio's default line limit is 64 KiB; a long request must reach the tool (and be refused
    there, structurally), not break the transport."""

    async def scenario(c):
        long = await c("search_documents", {"query": "variance " * 20_000})  # ≈ 180 KB
        return long, await c("list_documents", {})

    long, after = run_calls(served_home, scenario, warm_up=False)
    assert_error(long, "invalid_argument", "query")
    assert not after.is_error and after.structured_content["documents"]


def test_stdin_from_a_regular_file_is_served_by_the_sdk_transport(served_home, tmp_path):
    """asyncio cannot poll a regular file: the server falls back to the SDK's threaded transport."""
    requests = tmp_path / "requests.jsonl"
    requests.write_text(
        "\n".join(
            json.dumps(m)
            for m in [
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-11-25",
                        "capabilities": {},
                        "clientInfo": {"name": "file", "version": "0"},
                    },
                },
            ]
        )
        + "\n"
    )  # one request: at the file's end the SDK closes the session, racing any later answer
    env = {**os.environ, "QUANT_RAG_HOME": str(served_home), "QUANT_RAG_WARM_UP": "0", "PYTHONPATH": str(REPO)}
    with requests.open() as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "serving.server"],
            stdin=stdin,
            capture_output=True,
            text=True,
            env=env,
            cwd=str(REPO),
            timeout=120,
        )
    answers = {m["id"]: m for m in map(json.loads, done.stdout.splitlines())}
    assert answers[1]["result"]["serverInfo"]["name"] == "quant-rag", done.stderr[-2000:]
