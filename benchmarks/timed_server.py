"""`python -m serving.server` with timestamps, for benchmarks only: where a call's time goes inside
the server process, measured on the real stdio transport (cProfile, profiled_server.py, slows the
event loop it measures; these are four perf_counter reads per call).

For every tools/call it records when the request line was read, when the tool's handler
(serving.mcp.server.call_tool: validation, retrieval, rendering) started and ended, and when the answer
line was handed to the pipe; the marks are written as JSON to $QUANT_RAG_SERVER_MARKS at exit, and
`spans` turns them into per-call seconds:
  read_to_handler   the SDK parsing the JSON-RPC line, dispatching the request, validating it
  handler           call_tool: the tool itself (its retrieval included)
  handler_to_write  the SDK checking and dumping the result, JSON-encoding it, the transport

    QUANT_RAG_SERVER_MARKS=/tmp/marks.json python benchmarks/timed_server.py
"""

from __future__ import annotations

import atexit
import json
import os
import time
from pathlib import Path

MARKS_ENV = "QUANT_RAG_SERVER_MARKS"


def instrument(marks: list) -> None:
    """Wrap the transport's line reader and writer and the tool-call function with timestamps."""
    import serving.mcp.server as server
    import serving.mcp.stdio as stdio

    next_line, write_line, call_tool = stdio.RequestLines.__anext__, stdio.AnswerWriter.write, server.call_tool

    async def read(self):
        line = await next_line(self)
        marks.append(("read", time.perf_counter(), ""))
        return line

    async def write(self, text):
        marks.append(("write", time.perf_counter(), ""))
        return await write_line(self, text)

    def timed_call(spec, context, arguments):
        marks.append(("handler", time.perf_counter(), spec.name))
        try:
            return call_tool(spec, context, arguments)
        finally:
            marks.append(("handled", time.perf_counter(), spec.name))

    stdio.RequestLines.__anext__, stdio.AnswerWriter.write = read, write
    server.call_tool = timed_call  # run_tool looks it up at each call


def spans(path: Path, tool: str) -> dict[str, list[float]]:
    """Seconds of each span (module docstring) for every call of `tool` in the marks file."""
    marks = json.loads(path.read_text())
    out: dict[str, list[float]] = {"read_to_handler": [], "handler": [], "handler_to_write": []}
    for i, (kind, at, name) in enumerate(marks):
        if kind != "handler" or name != tool:
            continue
        read = max(t for k, t, _ in marks[:i] if k == "read")
        handled = next(t for k, t, _ in marks[i:] if k == "handled")
        written = next(t for k, t, _ in marks[i:] if k == "write")
        out["read_to_handler"].append(at - read)
        out["handler"].append(handled - at)
        out["handler_to_write"].append(written - handled)
    return out


def main() -> None:
    marks: list = []
    target = Path(os.environ[MARKS_ENV])
    atexit.register(lambda: target.write_text(json.dumps(marks)))
    instrument(marks)
    from serving.mcp.server import serve

    serve()


if __name__ == "__main__":
    main()
