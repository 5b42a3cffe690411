"""A tool call's cancel flag: set when the client gives up, read by long work without an argument.

The MCP SDK runs a synchronous tool in a worker thread and, on `notifications/cancelled` (or the
connection closing), cancels the request's scope; a worker thread cannot be interrupted, so the
server's async wrapper sets this flag instead, and the work checks it (the closest-passage search
does, through its budget). The flag travels in a context variable, which the SDK's worker thread
inherits, so tool handlers need no extra parameter.
"""

from __future__ import annotations

import threading
from contextvars import ContextVar

_CALL_CANCELLED: ContextVar[threading.Event | None] = ContextVar("quant_rag_call_cancelled", default=None)


def cancelled() -> bool:
    """True once the client has given up on the current call (False outside a server call)."""
    event = _CALL_CANCELLED.get()
    return event is not None and event.is_set()


def run_with_flag(flag: threading.Event, fn, *args):
    """Run `fn(*args)` (in the worker thread) with `flag` as the current call's cancel flag."""
    token = _CALL_CANCELLED.set(flag)
    try:
        return fn(*args)
    finally:
        _CALL_CANCELLED.reset(token)
