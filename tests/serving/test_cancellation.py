"""A verification the client gave up on stops its work; the server answers the next call."""

from __future__ import annotations

import threading
import time

import anyio
from mcp.client.client import Client

from corpus.config import ServedConfig
from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout
from serving.citation import closest as citation_closest
from serving.citation import verify as citation
from serving.mcp.server import build_server

GUARD_S = 120  # only guards against a hang; nothing here asserts on time


def test_the_closest_search_stops_when_the_call_is_cancelled(served_copy):
    layout = StateLayout(served_copy)
    reader = CorpusReader.open(layout)
    document_id = layout.registered_document_ids()[0]
    words = reader.canonical_text(document_id).split()[200:260]
    near_miss = " ".join(w if i % 7 else "zebra" for i, w in enumerate(words))
    finished = citation.verify_quote(reader, document_id, near_miss)  # runs to its closest passage
    assert finished.status == "not_found" and finished.closest is not None
    budget = citation.Budget(seconds=600, cancelled=lambda: True)
    stopped = citation.verify_quote(reader, document_id, near_miss, budget=budget)
    assert stopped.status == "not_found" and citation.BUDGET_REASON in stopped.reason
    assert budget.stopped == "cancelled"


def test_a_cancelled_verification_stops_its_work_and_the_server_answers_the_next_call(served_copy, monkeypatch):
    started, ended = threading.Event(), threading.Event()
    stops: list[str | None] = []

    def endless_closest(doc, quote, budget):
        """A closest search that only the call's cancel flag can end in time (its deadline, far
        away, only keeps a broken flag from hanging the test: it then ends as "deadline")."""
        budget.deadline = time.monotonic() + GUARD_S
        started.set()
        try:
            while True:
                budget.spend()
                time.sleep(0.005)
        finally:
            stops.append(budget.stopped)
            ended.set()

    monkeypatch.setattr(citation_closest, "_closest", endless_closest)
    layout = StateLayout(served_copy)
    document_id = layout.registered_document_ids()[0]
    server, _ = build_server(layout, ServedConfig())

    async def scenario():
        async with Client(server) as client:
            async with anyio.create_task_group() as group:
                group.start_soon(
                    client.call_tool,
                    "verify_citation",
                    {"document_id": document_id, "quote": "zebra quokka narwhal platypus okapi"},
                )
                assert await anyio.to_thread.run_sync(started.wait, GUARD_S)
                group.cancel_scope.cancel()  # the client gives up: the SDK sends notifications/cancelled
            await anyio.to_thread.run_sync(ended.wait, 2 * GUARD_S)
            return await client.call_tool("list_documents", {})

    following = anyio.run(scenario)
    assert stops == ["cancelled"]  # the work stopped because the client gave up, not at a deadline
    assert not following.is_error and following.structured_content["documents"]
