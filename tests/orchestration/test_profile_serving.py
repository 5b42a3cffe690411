"""A profiled benchmark's state is served with its profile: the tiny BEIR corpus built under the
name `tatqa` records the TAT-QA profile (corpus.state.profile), and `quant-rag search` over it,
by the record or by QUANT_RAG_PROFILE=tatqa, ranks as the profile says, through the server's own
tool path."""

from __future__ import annotations

import json

import pytest
from tiny_benchmark import TOPICS, write_beir

from cli.main import main as quant_rag
from corpus.config import ServedConfig
from corpus.profiles import PROFILES
from corpus.state.layout import StateLayout
from corpus.state.profile import recorded_profile, state_config
from ingest.parsing.beir import read_corpus

QUERY = "harbour crane maintenance"  # row r0's topic; r0, r1 and r2 share one context (one document)


@pytest.fixture(scope="module")
def tatqa_state(tmp_path_factory):
    """The tiny corpus's published state, ingested by the pipeline's jobs as benchmark `tatqa`."""
    from orchestration.benchmark import prepare_benchmark

    root = tmp_path_factory.mktemp("profiled")
    folder = write_beir(root / "tatqa", {"q0": TOPICS[0]}, {"q0": "d0"})
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("QUANT_RAG_PROFILE", raising=False)
        return prepare_benchmark(StateLayout(root / "home").ensure(), "tatqa", read_corpus(folder / "corpus.jsonl"))


def _search(capsys, monkeypatch, state, **env: str) -> dict:
    monkeypatch.setenv("QUANT_RAG_HOME", str(state.layout.root))
    monkeypatch.delenv("QUANT_RAG_PROFILE", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    capsys.readouterr()
    assert quant_rag(["search", QUERY, "--limit", "5", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_benchmark_state_records_its_profile(tatqa_state, monkeypatch):
    monkeypatch.delenv("QUANT_RAG_PROFILE", raising=False)
    assert recorded_profile(tatqa_state.layout) == "tatqa"
    config = state_config(tatqa_state.layout)
    assert config == ServedConfig.from_env().with_profile("tatqa")
    assert {field: getattr(config, field) for field in PROFILES["tatqa"]} == PROFILES["tatqa"]


def test_the_served_search_ranks_with_the_profile(tatqa_state, capsys, monkeypatch):
    chunk = tatqa_state.chunk_of
    siblings = {chunk["r1"], chunk["r2"]}  # the other passages of r0's document
    profiled = _search(capsys, monkeypatch, tatqa_state)  # the state's recorded profile
    ranked = [hit["chunk_id"] for hit in profiled["results"]]
    # the profile adds a document's best candidate score to each of its passages: r0's document
    # lifts its two other passages, whose topics the query does not name, right behind it
    assert ranked[0] == chunk["r0"] and set(ranked[1:3]) == siblings
    named = _search(capsys, monkeypatch, tatqa_state, QUANT_RAG_PROFILE="tatqa")
    assert [hit["chunk_id"] for hit in named["results"]] == ranked
    assert named["trace"]["config_hash"] == profiled["trace"]["config_hash"]
    # an explicit variable wins over the profile: without that lever they fall back
    plain = _search(capsys, monkeypatch, tatqa_state, QUANT_RAG_PROFILE="tatqa", QUANT_RAG_DOCUMENT_BEST_WEIGHT="0")
    ranked_plain = [hit["chunk_id"] for hit in plain["results"]]
    assert ranked_plain[0] == chunk["r0"] and not siblings & set(ranked_plain[1:3])
    assert profiled["trace"]["config_hash"] != plain["trace"]["config_hash"]


def test_an_unknown_profile_names_the_known_ones(monkeypatch):
    monkeypatch.setenv("QUANT_RAG_PROFILE", "nope")
    with pytest.raises(ValueError, match="known profiles: tatqa"):
        ServedConfig.from_env()
