"""The server measured at the wire: JSON-RPC lines written to its stdin, answers read from stdout.

The SDK's stdio client (benchmarks/serving_latency.py's other figures) parses every answer into
its pydantic models and checks structured content against the tool's output schema with
jsonschema before `call_tool` returns: ≈ 5 ms of the client's CPU per search, inside the wall time
it reports. Clients differ (Claude Code's is TypeScript), so this client times only the server:
from the request line's write to the complete answer line read. Every answer is parsed and
checked (a result with the request's id, not an error) after its timer stopped.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from typing import Any

PROTOCOL_VERSION = "2025-11-25"  # what the SDK client negotiates (mcp_types LATEST_HANDSHAKE_VERSION)
_HEAD = 160  # a notification names its method in its first bytes; an answer does not


class WireError(RuntimeError):
    """An answer that is not the expected successful result."""


class WireClient:
    """One server subprocess spoken to in raw newline-delimited JSON-RPC."""

    def __init__(self, command: str, args: list[str], env: dict[str, str], cwd: str) -> None:
        self.started = time.perf_counter()
        self._proc = subprocess.Popen(
            [command, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd
        )
        self._next_id = 0
        self.notifications = 0  # lines the server sent that were not answers (none expected)

    @property
    def pid(self) -> int:
        return self._proc.pid

    def _line(self, method: str, params: dict[str, Any] | None, with_id: bool) -> bytes:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if with_id:
            self._next_id += 1
            message["id"] = self._next_id
        if params is not None:
            message["params"] = params
        return json.dumps(message).encode() + b"\n"

    def timed(self, method: str, params: dict[str, Any] | None = None) -> tuple[float, dict[str, Any]]:
        """(seconds from writing the request to reading its whole answer line, the result)."""
        line = self._line(method, params, with_id=True)
        stdin, stdout = self._proc.stdin, self._proc.stdout
        start = time.perf_counter()
        stdin.write(line)
        stdin.flush()
        answer = stdout.readline()
        while b'"method"' in answer[:_HEAD]:  # a server notification: the answer is still to come
            self.notifications += 1
            answer = stdout.readline()
        elapsed = time.perf_counter() - start
        return elapsed, self._checked(answer, method)

    def _checked(self, answer: bytes, method: str) -> dict[str, Any]:
        if not answer:
            raise WireError(f"{method}: the server closed its stdout")
        message = json.loads(answer)
        if message.get("id") != self._next_id or "result" not in message:
            raise WireError(f"{method}: not a result for id {self._next_id}: {answer[:300]!r}")
        result = message["result"]
        if result.get("isError"):
            raise WireError(f"{method} failed: {json.dumps(result)[:300]}")
        return result

    def notify(self, method: str) -> None:
        self._proc.stdin.write(self._line(method, None, with_id=False))
        self._proc.stdin.flush()

    def initialize(self) -> float:
        """The handshake; returns seconds since spawn when `initialize` was answered."""
        self.timed(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "wire-bench", "version": "0"},
            },
        )
        ready = time.perf_counter() - self.started
        self.notify("notifications/initialized")
        return ready

    def call_tool(self, name: str, arguments: dict[str, Any]) -> tuple[float, dict[str, Any]]:
        return self.timed("tools/call", {"name": name, "arguments": arguments})

    def close(self) -> None:
        self._proc.stdin.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._proc.stdout.close()

    def __enter__(self) -> WireClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process `pid` (all its threads), from /proc."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _client(params) -> WireClient:
    """A WireClient on the server the SDK client would start (its StdioServerParameters)."""
    return WireClient(params.command, list(params.args), dict(params.env), str(params.cwd))


def wire_cold_start(params, first_tool: str, arguments: dict) -> dict:
    """Seconds from spawn to `initialize` answered and to `first_tool`'s answer, at the wire."""
    with _client(params) as client:
        ready = client.initialize()
        client.call_tool(first_tool, arguments)
        first = time.perf_counter() - client.started
        return {"initialize_s": ready, "first_answer_s": first, "server_cpu_s": cpu_seconds(client.pid)}


def wire_latencies(
    params,
    repeat: int,
    labels: list[str],
    set_up,
    make_calls,
    between=None,
) -> tuple[dict[str, list[float]], dict[str, dict]]:
    """Per label: seconds of each call and CPU ms per call (server, this client), at the wire.

    `set_up(call)` makes the calls the measured ones depend on (call(tool, arguments) -> the
    structured result) and returns `make_calls`'s arguments. `between` (label -> fn(i)) runs after
    the label's i-th call, outside its timer and its client CPU: work to be timed at the same
    moments as the calls (the in-process retrieval the wire figure is compared with)."""
    between = between or {}
    times: dict[str, list[float]] = {}
    cpu: dict[str, dict] = {}
    with _client(params) as client:
        client.initialize()
        calls = make_calls(*set_up(lambda tool, arguments: client.call_tool(tool, arguments)[1]["structuredContent"]))
        steps = [(label, label.split("(")[0], calls[label]) for label in labels]
        steps.append(("ping (transport floor)", None, None))
        for label, tool, make in steps:
            server, mine = cpu_seconds(client.pid), time.process_time()
            if tool is None:
                times[label] = [client.timed("ping")[0] for _ in range(repeat)]
            else:
                times[label] = []
                for i in range(repeat):
                    times[label].append(client.call_tool(tool, make(i))[0])
                    if label in between:
                        aside = time.process_time()
                        between[label](i)
                        mine += time.process_time() - aside
            cpu[label] = {
                "server": round(1000 * (cpu_seconds(client.pid) - server) / repeat, 2),
                "client": round(1000 * (time.process_time() - mine) / repeat, 2),
            }
    return times, cpu
