"""The stdio transport, without worker threads.

The SDK's `stdio_server` reads each request line, writes each answer and flushes it through
anyio's file wrapper: three worker-thread hops per call, each a thread wake-up and a GIL
hand-over, which on a busy two-core machine cost more than the tool itself. Here the same
newline-delimited JSON-RPC is read and written on the event loop's non-blocking pipes, and the
lines are handed to the SDK's own `stdio_server`, so parsing and encoding messages stay the SDK's.

Like the SDK, the transport claims the process's stdin and stdout while it serves: fd 0 then
reads /dev/null and fd 1 writes to stderr, so a stray print in a library never corrupts the wire.
When stdin or stdout is not a pipe, socket or terminal (the event loop cannot poll a regular file
or /dev/null), the SDK's threaded transport serves instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import stat
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, cast

from mcp.server.stdio import stdio_server

if TYPE_CHECKING:
    from anyio import AsyncFile

# A request line can be long (a 50-quote verification batch), longer than asyncio's default limit.
LINE_LIMIT = 256 * 1024 * 1024
DRAIN_S = 2.0  # at exit, how long answers still buffered may wait for the client to read them


def _pollable(fd: int) -> bool:
    """A pipe, socket or terminal (epoll refuses regular files and /dev/null)."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd)


class RequestLines:
    """The request lines, decoded as the SDK's transport decodes them."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> RequestLines:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class AnswerWriter:
    """write + flush, as the SDK's transport calls them, on a non-blocking pipe."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._writer.drain()  # waits only when the client is not reading (pipe full)


@contextlib.contextmanager
def _claimed(fd: int, diversion: int):
    """A duplicate of `fd` for the wire (owned, then closed, by the caller's transport) while
    `fd` itself points at `diversion`; `fd` is restored on exit."""
    saved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    wire = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    os.dup2(diversion, fd)
    os.close(diversion)
    try:
        yield wire
    finally:
        os.dup2(saved, fd)
        os.close(saved)
        with contextlib.suppress(OSError):
            os.set_blocking(fd, True)  # the event loop made the shared file description non-blocking


@contextlib.asynccontextmanager
async def stdio_streams() -> AsyncIterator[tuple]:
    """(read, write) message streams over this process's stdin and stdout."""
    if not (_pollable(0) and _pollable(1)):
        async with stdio_server() as streams:
            yield streams
        return
    loop = asyncio.get_running_loop()
    with _claimed(0, os.open(os.devnull, os.O_RDONLY)) as wire_in, _claimed(1, os.dup(2)) as wire_out:
        reader = asyncio.StreamReader(limit=LINE_LIMIT)
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(wire_in, "rb", buffering=0)
        )
        write_transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(wire_out, "wb", buffering=0)
        )
        writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
        try:
            # The SDK only iterates its stdin and calls write and flush on its stdout, what these
            # two do; its annotation names anyio's file wrapper, which they stand in for.
            lines, answers = cast("AsyncFile[str]", RequestLines(reader)), cast("AsyncFile[str]", AnswerWriter(writer))
            async with stdio_server(lines, answers) as streams:
                yield streams
        finally:
            read_transport.close()
            deadline = loop.time() + DRAIN_S  # the last answers, if the pipe was full
            while write_transport.get_write_buffer_size() and loop.time() < deadline:
                await asyncio.sleep(0.01)
            write_transport.close()
