"""A blocking handle on a real `python -m serving.server` subprocess, driven by the SDK's stdio
client through an anyio portal, so plain (and hypothesis) tests can send calls one by one."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

from anyio.from_thread import start_blocking_portal
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[2]


class Server:
    def __init__(self, portal, session) -> None:
        self.portal, self.session = portal, session
        self.pid = _server_pid()

    def call(self, name: str, arguments: dict):
        """(result, seconds) of one tool call."""
        start = time.perf_counter()
        result = self.portal.call(self.session.call_tool, name, arguments)
        return result, time.perf_counter() - start

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS")


def _server_pid() -> int:
    """The server subprocess: our child running serving.mcp.server."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text()
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                if ppid == os.getpid() and b"serving.server" in (entry / "cmdline").read_bytes():
                    return int(entry.name)
    raise AssertionError("server process not found")


@contextlib.contextmanager
def running_server(home: Path, warm_up: bool = True):
    env = {
        **os.environ,
        "QUANT_RAG_HOME": str(home),
        "HF_HUB_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
        "QUANT_RAG_WARM_UP": "1" if warm_up else "0",
    }
    params = StdioServerParameters(command=sys.executable, args=["-m", "serving.server"], env=env, cwd=str(REPO))
    with open(os.devnull, "w") as errlog, start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(stdio_client(params, errlog=errlog)) as (read, write):
            with portal.wrap_async_context_manager(ClientSession(read, write)) as session:
                portal.call(session.initialize)
                yield Server(portal, session)
