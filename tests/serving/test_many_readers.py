"""Any number of readers on one state: four `python -m serving.server` processes over the MCP stdio
client and two `quant-rag search` processes, all at once, all answering dense and hybrid searches
while a writer holds the current vector generation open (embedded Qdrant's one-handle lock)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys

import pytest

from corpus.config import ServedConfig
from corpus.state.generations import current_generation
from corpus.state.layout import StateLayout
from corpus.vectors.vector_store import edge_root
from corpus.vectors.vector_store_edge import EdgeVectorStore
from tests.serving.stdio_harness import REPO, running_server

SERVERS = 4
QUERY = "value at risk of a portfolio"


def _cli_search(home, mode: str) -> subprocess.Popen:
    env = {**os.environ, "QUANT_RAG_HOME": str(home), "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "cli.main", "search", QUERY, "--mode", mode, "--json"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.long
def test_four_servers_and_the_cli_search_one_state_at_once(served_copy):
    layout, config = StateLayout(served_copy), ServedConfig()
    folder = current_generation(edge_root(layout, config))
    writer = EdgeVectorStore(folder, 384)  # what used to lock every reader out of dense search
    try:
        with contextlib.ExitStack() as stack:
            servers = [stack.enter_context(running_server(served_copy)) for _ in range(SERVERS)]
            clis = [_cli_search(served_copy, mode) for mode in ("dense", "hybrid")]
            answers = {}
            for round_ in range(2):  # a second round: readers keep answering, nothing was held
                for index, server in enumerate(servers):
                    for mode in ("dense", "hybrid"):
                        result, _ = server.call("search_documents", {"query": QUERY, "mode": mode, "limit": 5})
                        assert not result.is_error, result.content[0].text
                        answers[(round_, index, mode)] = [r["chunk_id"] for r in result.structured_content["results"]]
            outputs = [cli.communicate(timeout=300) for cli in clis]
    finally:
        writer.close()
    for cli, (stdout, stderr) in zip(clis, outputs):
        assert cli.returncode == 0, stderr
        answers[("cli", cli.args[5])] = [r["chunk_id"] for r in json.loads(stdout)["results"]]
    for mode in ("dense", "hybrid"):
        ranked = {tuple(ids) for key, ids in answers.items() if mode in key}
        assert len(ranked) == 1 and len(next(iter(ranked))) == 5, (mode, ranked)  # all readers agree
