"""Driving the real MCP server (`python -m serving.server`) over stdio with the SDK's client.

Shared by the server test and the per-tool tests: every successful call is checked against the
tool's published output schema and carries a complete trace; every error carries no structured
content, and its error (code, message, fields, next_call) as JSON in its last text block."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import jsonschema
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[1]
TRACE_KEYS = {"request_id", "server_version", "contract_version", "corpus_signature", "config_hash", "window"}


def run_session(home: Path, scenario, warm_up: bool = True):
    """Start the server on `home`, run `scenario(session)` and return what it returns."""
    env = {
        **os.environ,
        "QUANT_RAG_HOME": str(home),
        "HF_HUB_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
        "QUANT_RAG_WARM_UP": "1" if warm_up else "0",
    }
    params = StdioServerParameters(command=sys.executable, args=["-m", "serving.server"], env=env, cwd=str(REPO))
    result = {}

    async def main():
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    result["value"] = await scenario(session)

    anyio.run(main)
    return result["value"]


def run_calls(home: Path, scenario, warm_up: bool = True):
    """`run_session` where `scenario(c)` gets `c(name, arguments)`, a checked `call`."""

    async def wrapped(session):
        tools = {t.name: t for t in (await session.list_tools()).tools}
        return await scenario(lambda name, arguments: call(session, tools, name, arguments))

    return run_session(home, wrapped, warm_up)


async def call(session, tools, name, arguments):
    """Call a tool; a success must carry structured content valid against its output schema."""
    result = await session.call_tool(name, arguments)
    if not result.is_error:
        jsonschema.validate(result.structured_content, tools[name].output_schema)
        assert set(result.structured_content["trace"]) == TRACE_KEYS
        assert result.content and result.content[0].text.strip()
    return result


def error_body(result) -> dict:
    """{"error": {...}, "trace": {...}} of an error result: its last text block, the error as JSON.

    An error result carries no structured content (a strict client validates any structured
    content against the tool's output schema, which describes the success)."""
    assert result.is_error, result.content[0].text
    assert result.structured_content is None, result.structured_content
    return json.loads(result.content[-1].text)


def error_of(result) -> dict:
    """The error object (code, message, fields, next_call, rebuild) of an error result."""
    return error_body(result)["error"]


def error_text(result) -> str:
    """Everything a text-only client shows of a result."""
    return "\n".join(block.text for block in result.content if block.type == "text")


def assert_error(result, code: str, *needles: str) -> dict:
    body = error_body(result)
    error = body["error"]
    assert error["code"] == code, error
    for needle in needles:
        assert needle in error["message"] or needle in error["fields"], error
    assert error["next_call"], error  # every error says what to call next
    assert "Traceback" not in error_text(result)
    assert set(body["trace"]) == TRACE_KEYS
    return error
