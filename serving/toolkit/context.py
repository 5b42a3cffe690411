"""What a tool handler is given: the `ToolContext` protocol.

The server's `ServingContext` is its implementation; evaluation runs the same filter resolution
through `serving.toolkit.filters.EngineContext`. Typed here so tools depend on what they use, not on the
server module (which imports mcp).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # typing only: importing a tool's spec must not load the engine (numpy & co.)
    from corpus.config import ServedConfig
    from serving.answer.outputs import Trace
    from serving.coherence import CoherenceReport
    from serving.retrieval.engine import Engine
    from serving.sessions.store import SessionStore


class ScopeContext(Protocol):
    """Enough to resolve filters into a scope: the engine (newest year) and the session store."""

    @property
    def engine(self) -> Engine: ...

    @property
    def sessions(self) -> SessionStore: ...


class ToolContext(ScopeContext, Protocol):
    """Everything a tool may use in one server process."""

    @property
    def config(self) -> ServedConfig: ...

    @property
    def config_hash(self) -> str: ...

    @property
    def coherence(self) -> CoherenceReport: ...

    def trace(self, window: str | None) -> Trace: ...
