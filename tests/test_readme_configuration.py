"""The README's configuration table cannot drift from the code: every QUANT_RAG_* variable the
code reads is in the table and every row is read by the code, and the defaults the table states for
ServedConfig-backed variables are the model's defaults."""

from __future__ import annotations

import re
from pathlib import Path

from corpus.config import ServedConfig

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("corpus", "serving", "ingest", "assets", "orchestration", "evaluation", "cli")
# variable -> ServedConfig field whose default the README row states
SERVED_DEFAULTS = {
    "QUANT_RAG_DEFAULT_MODE": "default_mode",
    "QUANT_RAG_VECTOR_BACKEND": "vector_backend",
    "QUANT_RAG_EMBEDDING_MODEL": "embedding_model",
    "QUANT_RAG_EMBEDDING_REVISION": "embedding_revision",
    "QUANT_RAG_QUERY_RUNTIME": "query_runtime",
    "QUANT_RAG_PASSAGE_RUNTIME": "passage_runtime",
    "QUANT_RAG_FUSION": "fusion",
    "QUANT_RAG_DENSE_WEIGHT": "dense_weight",
    "QUANT_RAG_BM25_WEIGHT": "bm25_weight",
    "QUANT_RAG_VECTOR_INDEX": "vector_index",
    "QUANT_RAG_LATE_INTERACTION_WEIGHT": "late_interaction_weight",
    "QUANT_RAG_BM25_K1": "bm25_k1",
    "QUANT_RAG_BM25_B": "bm25_b",
    "QUANT_RAG_CANDIDATE_POOL": "candidate_pool",
    "QUANT_RAG_BM25_STOPWORDS": "bm25_stopwords",
    "QUANT_RAG_NO_ANSWER_THRESHOLD": "no_answer_threshold",
    "QUANT_RAG_COOP_ALTERNATIVE_WEIGHT": "coop_alternative_weight",
    "QUANT_RAG_COOP_HYPOTHETICAL_WEIGHT": "coop_hypothetical_weight",
    "QUANT_RAG_CALLER_RUNTIME": "caller_runtime",
    "QUANT_RAG_RESCAN_DOCUMENTS": "rescan_documents",
}


def _table() -> dict[str, str]:
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Configuration", 1)[1].split("\n## ", 1)[0]
    return {m[1]: m[2] for m in re.finditer(r"^\| `(QUANT_RAG_[A-Z0-9_]+)` \| `?([^`|]*?)`? \|", section, re.M)}


def test_every_variable_the_code_reads_is_documented_and_no_other():
    read = {
        v
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        for v in re.findall(r"QUANT_RAG_[A-Z0-9_]+", path.read_text(encoding="utf-8"))
    }
    assert set(_table()) == read


def test_stated_defaults_are_the_configuration_defaults():
    table, defaults = _table(), ServedConfig()
    for variable, field in SERVED_DEFAULTS.items():
        assert table[variable] == str(getattr(defaults, field)), variable


def test_the_profile_variable_reaches_the_configuration(monkeypatch):
    # QUANT_RAG_PROFILE (README, Configuration) applies the profile's values; a variable of its own wins
    monkeypatch.setenv("QUANT_RAG_PROFILE", "tatqa")
    config = ServedConfig.from_env()
    assert config == ServedConfig().with_profile("tatqa") != ServedConfig()
    assert config.config_hash() != ServedConfig().config_hash()
    monkeypatch.setenv("QUANT_RAG_BM25_K1", "1.2")
    assert ServedConfig.from_env() == ServedConfig().with_profile("tatqa").model_copy(update={"bm25_k1": 1.2})
