"""The MCP stdio server: fourteen tools, one prompt, a coherence gate in front of every call but
corpus_status's (which reports what is incoherent and what to run).

Importing this module opens nothing and loads no model; the state is checked on the first call
and the engine opens its stores lazily (a background warm-up starts them after launch).
Run with `python -m serving.server` or `quant-rag serve`; logs go to stderr only.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts import Prompt
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import ConfigDict, ValidationError

from corpus.config import ServedConfig
from corpus.model_identity import ModelPathError
from corpus.ids import InvalidIdError
from corpus.state import StateLayout
from corpus.versions import SERVER_VERSION
from serving import prompt
from serving.cancel import run_with_flag
from serving.coherence import CoherenceReport, check_state
from serving.contract import WINDOWS, Trace, make_trace
from serving.engine import Engine
from serving.errors import (IncoherentState, InvalidArgument, ServingError,
                            describe_validation_error, without_state_paths)
from serving.schemas import render_trace
from serving.tools import ToolSpec
from serving.toolset import all_tools

log = logging.getLogger("quant_rag.server")

SERVER_NAME = "quant-rag"
WARM_UP_ENV = "QUANT_RAG_WARM_UP"  # "0" skips the background model load (tests, doctor-like uses)
INSTRUCTIONS = (
    "Retrieval over a closed quantitative-finance library. Passages come with a `cite` line to copy "
    "and an anchor, never cut inside a formula, table row or word; verify quotes before asserting "
    f"them. Get the `{prompt.PROMPT_NAME}` prompt for the full protocol. Every result carries a "
    "`trace`. A failed call is an error result whose structured content is {\"error\": {code, "
    "message, fields, rebuild}, \"trace\"}; by code: invalid_argument: fix the arguments named in "
    "`fields`; not_found: an id or session name this server does not hold (list_documents and "
    "session_list give valid ones); incoherent_state: the indexes disagree with the corpus, every "
    "tool but corpus_status refuses until the `rebuild` commands are run (corpus_status says what "
    "is wrong; tell the user); unavailable: a store or model could not be opened (`rebuild` says "
    "how); internal: a server bug, logged by the server.")


class ServingContext:
    """State shared by every tool call in one server process."""

    def __init__(self, layout: StateLayout, config: ServedConfig) -> None:
        from corpus.published import open_published
        from serving.sessions import SessionStore

        # Resolved once: this process serves the generation published now, whatever an ingest
        # does meanwhile, and its lease keeps that generation on disk until the process exits.
        self.published = open_published(layout)
        self.layout = self.published.layout
        self.config = config
        self.config_hash = config.config_hash(WINDOWS)
        self.sessions = SessionStore()
        self._report: CoherenceReport | None = None
        self._engine: Engine | None = None
        self._lock = threading.Lock()
        self._engine_lock = threading.Lock()

    @property
    def engine(self) -> Engine:
        """The engine, built at the signature the coherence check found (once per process)."""
        signature = self.coherence.signature
        with self._engine_lock:
            if self._engine is None:
                self._engine = Engine(self.layout, self.config, signature=signature)
            return self._engine

    @property
    def coherence(self) -> CoherenceReport:
        with self._lock:
            if self._report is None:
                self._report = check_state(self.layout, self.config)
                if not self._report.coherent:
                    log.error("%s", self._report.problem())
            return self._report

    def ensure_coherent(self) -> None:
        report = self.coherence
        if not report.coherent:
            raise IncoherentState(report.problem(), rebuild=report.rebuild_commands)

    def trace(self, window: str | None) -> Trace:
        signature = self._report.signature if self._report else None
        return make_trace(signature, self.config_hash, WINDOWS.get(window, 0) if window else 0)


class _RawArguments(ArgModelBase):
    """Hands the raw arguments to the tool so the tool's closed model reports every problem."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"arguments": dict(self.model_extra or {})}


def error_result(error: ServingError, trace: Trace, state_root: Path | None = None) -> CallToolResult:
    detail = error.detail()
    if state_root is not None:
        detail.message = without_state_paths(detail.message, state_root)
    text = f"error ({detail.code}): {detail.message}\n{render_trace(trace)}"
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True,
                          structured_content={"error": detail.model_dump(mode="json"),
                                              "trace": trace.model_dump(mode="json")})


def call_tool(spec: ToolSpec, context: ServingContext, arguments: dict[str, Any]) -> CallToolResult:
    """Validate, run and render one call; every failure becomes a structured tool error."""
    try:
        if spec.needs_coherent_state:  # corpus_status answers anyway: it reports the incoherence
            context.ensure_coherent()
        try:
            args = spec.input_model.model_validate(arguments)
        except ValidationError as exc:
            raise describe_validation_error(exc) from exc
        output = spec.handler(context, args)
        return CallToolResult(content=[TextContent(type="text", text=spec.render(output))],
                              structured_content=output.model_dump(mode="json"))
    except ServingError as exc:
        error = exc
    except InvalidIdError as exc:
        error = InvalidArgument(str(exc))
    except Exception:  # a bug or a broken store: logged with its traceback on stderr only
        log.exception("tool %s failed", spec.name)
        error = ServingError(f"internal error in {spec.name}; the server logged the details")
    return error_result(error, context.trace(spec.window), context.layout.root)


async def _raise_when_cancelled(flag: threading.Event) -> None:
    try:
        await anyio.sleep_forever()
    finally:
        flag.set()  # cancelled: the client gave up (or the call is over, when it no longer matters)


def build_tool(spec: ToolSpec, context: ServingContext) -> Tool:
    async def run(arguments: dict[str, Any]) -> CallToolResult:
        # The call runs in a worker thread, which cannot be interrupted. When the client gives up,
        # the SDK cancels this task: the watcher raises the flag the thread's work checks, and the
        # task still waits for the thread (so the SDK's thread limit keeps bounding the work).
        flag = threading.Event()
        async with anyio.create_task_group() as group:
            group.start_soon(_raise_when_cancelled, flag)
            result = await anyio.to_thread.run_sync(run_with_flag, flag, call_tool, spec, context, arguments)
            group.cancel_scope.cancel()
        return result

    annotations = ToolAnnotations(title=spec.title, read_only_hint=spec.read_only,
                                  destructive_hint=spec.destructive if not spec.read_only else None,
                                  idempotent_hint=spec.idempotent, open_world_hint=False)
    return Tool(fn=run, name=spec.name, title=spec.title, description=spec.describe(context),
                parameters=spec.input_model.model_json_schema(),
                fn_metadata=FuncMetadata(arg_model=_RawArguments, output_schema=published_schema(spec)),
                is_async=True, annotations=annotations)


def published_schema(spec: ToolSpec) -> dict[str, Any]:
    """The output schema the SDK derives from the tool's output model. Handing the SDK the schema
    without the model publishes it unchanged but skips re-validating every result against it on
    the hot path: results are built by that same model, and tests validate them over stdio."""
    return FuncMetadata(arg_model=_RawArguments, output_model=spec.output_model).output_schema


def build_server(layout: StateLayout | None = None, config: ServedConfig | None = None,
                 ) -> tuple[MCPServer, ServingContext]:
    context = ServingContext(layout or StateLayout.from_env(), config or ServedConfig.from_env())
    tools = [build_tool(spec, context) for spec in all_tools()]
    server = MCPServer(name=SERVER_NAME, version=SERVER_VERSION, instructions=INSTRUCTIONS,
                       tools=tools, log_level="WARNING")
    server.add_prompt(Prompt.from_function(prompt.research_protocol, name=prompt.PROMPT_NAME,
                                           title=prompt.PROMPT_TITLE,
                                           description=prompt.PROMPT_DESCRIPTION))
    return server, context


def _warm_up(context: ServingContext) -> None:
    if context.coherence.coherent:
        context.engine.warm_up()
        try:  # the default (hybrid) search also needs BM25; load it while the client connects
            _ = context.engine.bm25
        except ServingError:  # reported properly by the first request that needs it
            log.warning("BM25 warm-up failed", exc_info=True)


def serve(layout: StateLayout | None = None, config: ServedConfig | None = None,
          warm_up: bool = True) -> None:
    """Serve over stdio until the client closes the stream."""
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # bm25s imports numba whenever it is installed (≈ 0.15 s idle, 0.45 s loaded) for a backend the
    # server never uses (scores come from its numpy path); the server process never needs numba.
    sys.modules.setdefault("numba", None)
    try:
        server, context = build_server(layout, config)
    except ModelPathError as exc:  # a configuration error names its variable; no traceback
        print(f"quant-rag serve: configuration error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    if warm_up and os.environ.get(WARM_UP_ENV, "1") != "0":
        threading.Thread(target=_warm_up, args=(context,), daemon=True, name="warm-up").start()
    server.run("stdio")


if __name__ == "__main__":
    serve()
