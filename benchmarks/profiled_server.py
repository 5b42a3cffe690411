"""`python -m serving.server` under cProfile, for benchmarks only: the profile of the server's
event loop (the SDK's request handling, the transport, and the cheap tools it runs inline; tool
calls in worker threads are not in it) is written to $QUANT_RAG_SERVER_PROFILE at exit.

    QUANT_RAG_SERVER_PROFILE=/tmp/server.prof python benchmarks/profiled_server.py
"""

from __future__ import annotations

import atexit
import cProfile
import os

PROFILE_ENV = "QUANT_RAG_SERVER_PROFILE"


def main() -> None:
    profile = cProfile.Profile()

    def dump() -> None:
        profile.disable()
        profile.dump_stats(os.environ[PROFILE_ENV])

    atexit.register(dump)
    from serving.mcp.server import serve

    profile.enable()
    serve()


if __name__ == "__main__":
    main()
