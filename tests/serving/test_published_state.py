"""A server started in the middle of an ingest serves the last published state (old signature);
after the ingest a fresh server serves the new one; `doctor` meanwhile says the published state is
coherent and names the ingest in progress; the old generation goes once no reader holds it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from corpus.ids import document_id_for_bytes
from corpus.reading.published import open_published, prune
from corpus.state.layout import StateLayout
from corpus.state.signature import compute_signature, recorded_signature
from ingest.sources.library import LIBRARY_ROOT
from tests.serving.stdio_harness import REPO, running_server

NEW_LECTURE = LIBRARY_ROOT / "markdown" / "quantopian_lecture07_variance.md"  # not in the slice
QUERY = {"query": "value at risk of a portfolio", "mode": "dense", "limit": 3}


def _cli(home, *args: str, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "QUANT_RAG_HOME": str(home), "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    return subprocess.Popen([sys.executable, "-m", "cli.main", *args], cwd=REPO, env=env, **kwargs)


def _wait_for(predicate, process, timeout=300.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def _signature_served(server) -> str:
    status, _ = server.call("corpus_status", {})
    search, _ = server.call("search_documents", QUERY)
    assert not status.is_error and not search.is_error, (status.content[0].text, search.content[0].text)
    assert search.structured_content["results"]
    assert status.structured_content["coherent"]
    signature = status.structured_content["corpus_signature"]
    assert search.structured_content["trace"]["corpus_signature"] == signature
    return signature


def test_a_server_started_mid_ingest_serves_the_published_state(state_copy):
    layout = StateLayout(state_copy)  # the writer's view: the working state
    old = recorded_signature(layout)
    first = open_published(layout)
    first.close()
    assert first.generation and first.manifest["signature"] == old  # the fixture's ingest published it
    new_id = document_id_for_bytes(NEW_LECTURE.read_bytes())
    writer = _cli(state_copy, "ingest", str(NEW_LECTURE), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Frozen once its passages are written: the working state has moved, nothing is republished.
        assert _wait_for(lambda: layout.passages(new_id).exists(), writer), "the ingest ended first"
        os.kill(writer.pid, signal.SIGSTOP)
        assert compute_signature(layout) != old  # read in place, this state would be incoherent
        doctor = _cli(state_copy, "doctor", "--json", stdout=subprocess.PIPE, text=True)
        report = json.loads(doctor.communicate(timeout=300)[0])
        assert doctor.returncode == 0 and report["coherent"] and report["signature"] == old
        assert report["published"]["generation"] == first.generation
        assert [(w["action"], w["live"], w["pid"]) for w in report["writers"]] == [("ingest", True, writer.pid)]
        text = _cli(state_copy, "doctor", stdout=subprocess.PIPE, text=True).communicate(timeout=300)[0]
        assert "ingest in progress" in text and "state is coherent" in text, text
        with running_server(state_copy, warm_up=False) as mid:
            assert _signature_served(mid) == old
            os.kill(writer.pid, signal.SIGCONT)
            assert writer.wait(timeout=600) == 0
            new = recorded_signature(layout)
            assert new != old and new == compute_signature(layout)
            assert _signature_served(mid) == old  # still its own generation, whole
            assert first.generation not in prune(layout)  # held by `mid`
            assert (layout.published / first.generation).exists()
        assert prune(layout) == [first.generation]  # no reader holds it any more
        with running_server(state_copy, warm_up=False) as fresh:
            assert _signature_served(fresh) == new
    finally:
        if writer.poll() is None:
            os.kill(writer.pid, signal.SIGCONT)
            writer.kill()
            writer.wait()
