"""Embedder: offline load, semantics, pieces that keep every word within the window, cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus.config import QWEN3_EMBEDDING_MODEL, ServedConfig
from corpus.encoding.embedder import Embedder, EmbedderUnavailableError, load_embedder, passage_pieces, piece_spans
from corpus.encoding.embedding_cache import EmbeddingCache, embed_with_cache

REPO = Path(__file__).resolve().parents[2]
LECTURE = REPO / "library" / "markdown" / "quantopian_lecture44_arch_garch_and_gmm.md"

OFFLINE_PROBE = """
import json, numpy as np
from corpus.config import ServedConfig
from corpus.encoding.embedder import load_embedder
e = load_embedder(ServedConfig())
p = e.embed_passages(["GARCH models are used to forecast how volatile returns will be.",
                      "Knead the dough and let it rise for two hours before baking."])
q = e.embed_query("How can I predict future volatility with a GARCH model?")
print(json.dumps({"dimension": e.dimension, "shape": list(p.shape), "dtype": str(p.dtype),
                  "norms": np.linalg.norm(p, axis=1).tolist(), "query_norm": float(np.linalg.norm(q)),
                  "sims": (p @ q).tolist()}))
"""


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return load_embedder(ServedConfig())


@pytest.mark.slow  # a second model load (~10 s) in a fresh interpreter
def test_default_model_loads_offline_in_a_fresh_process():
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
        "HF_HOME": "/nonexistent-hf-home",
    }  # nothing cached to fall back on
    done = subprocess.run(
        [sys.executable, "-c", OFFLINE_PROBE], cwd=REPO, env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["dimension"] == 384 and result["shape"] == [2, 384] and result["dtype"] == "float32"
    assert result["norms"] == pytest.approx([1.0, 1.0], abs=1e-4)
    assert result["query_norm"] == pytest.approx(1.0, abs=1e-4)
    paraphrase, unrelated = result["sims"]
    assert paraphrase > unrelated + 0.2


def test_models_without_local_weights_fail_clearly(tmp_path):
    with pytest.raises(EmbedderUnavailableError, match="QUANT_RAG_EMBEDDING_PATH"):
        load_embedder(ServedConfig(embedding_model=QWEN3_EMBEDDING_MODEL))
    with pytest.raises(EmbedderUnavailableError, match="does not exist"):
        load_embedder(ServedConfig(embedding_model_path=str(tmp_path / "missing")))


def test_load_is_cached_per_process(embedder):
    assert load_embedder(ServedConfig()) is embedder


def test_query_instruction_prefixes_queries_only(embedder):
    instructed = Embedder(embedder.model, embedder.model_id, "Retrieve quant passages.")
    assert instructed.query_prompt == "Instruct: Retrieve quant passages.\nQuery:"
    assert embedder.query_prompt is None
    text = "volatility clustering"
    assert not np.allclose(instructed.embed_query(text), embedder.embed_query(text))
    assert np.allclose(instructed.embed_passages([text]), embedder.embed_passages([text]), atol=1e-5)


def test_fast_query_path_equals_sentence_transformers_encode(embedder):
    for text in ("volatility clustering", "How is CVaR estimated from historical returns?" * 3):
        for instruction in (None, "Retrieve quant passages."):
            model = Embedder(embedder.model, embedder.model_id, instruction)
            assert model._plain_mean_pooling()
            reference = model._encode([text], batch_size=1, prompt=model.query_prompt)[0]
            assert np.allclose(model.embed_query(text), reference, atol=1e-6)


def assert_pieces_valid(embedder: Embedder, prefix: str, text: str) -> list[tuple[int, int]]:
    lead, spans = piece_spans(embedder, prefix, text)
    pieces = passage_pieces(embedder, prefix, text)
    assert pieces == [lead + text[a:b] for a, b in spans]
    assert all(embedder.count_tokens(p) <= embedder.max_tokens for p in pieces)
    covered = np.zeros(len(text), dtype=bool)
    for a, b in spans:
        covered[a:b] = True
    missed = [i for i, c in enumerate(text) if not c.isspace() and not covered[i]]
    assert missed == [], f"characters never embedded at {missed[:10]}"
    starts = [a for a, _ in spans]
    assert starts == sorted(starts) and starts[0] == 0 and spans[-1][1] == len(text)
    return spans


def test_long_passage_is_cut_at_whitespace_with_overlap(embedder):
    text = LECTURE.read_text(encoding="utf-8")[:5000]
    spans = assert_pieces_valid(embedder, "ARCH, GARCH and GMM > Introduction", text)
    assert len(spans) >= 3
    for (a, b), (c, d) in zip(spans, spans[1:]):
        assert c < b, "consecutive pieces overlap"
        assert text[c - 1].isspace() and (b == len(text) or text[b].isspace() or not text[b].isalnum())


def test_short_passage_is_one_piece_behind_its_prefix(embedder):
    assert passage_pieces(embedder, "Title > Section", "A short passage.") == ["Title > Section\nA short passage."]
    assert passage_pieces(embedder, "", "No prefix.") == ["No prefix."]


def test_overlong_word_and_prefix_still_fit(embedder):
    assert_pieces_valid(embedder, "T", "x" * 4000 + " tail words here")
    long_prefix = " ".join(["Section"] * 400)
    lead, _ = piece_spans(embedder, long_prefix, "body " * 300)
    assert embedder.count_tokens(lead) <= embedder.max_tokens // 4 + 2
    assert_pieces_valid(embedder, long_prefix, "body " * 300)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    words=st.lists(st.text(alphabet="abcxyzGARCH(1,)$\\{}_^-é∑ .", min_size=1, max_size=30), min_size=50, max_size=400),
    seps=st.sampled_from([" ", "\n", "  \n\n"]),
)
def test_pieces_cover_random_text(embedder, words, seps):
    assert_pieces_valid(embedder, "Some title > A section", seps.join(words))


def test_cache_hit_avoids_re_embedding(embedder, tmp_path):
    cache = EmbeddingCache(tmp_path, "model-a")
    texts = ["alpha decay of momentum", "beta hedging", "alpha decay of momentum", "pairs trading"]
    before = embedder.encoded_texts
    first = embed_with_cache(embedder, cache, texts)
    assert embedder.encoded_texts - before == 3  # the duplicate is embedded once
    assert np.allclose(first[0], first[2])
    again = embed_with_cache(embedder, EmbeddingCache(tmp_path, "model-a"), texts)
    assert embedder.encoded_texts - before == 3
    assert np.array_equal(first, again)
    embed_with_cache(embedder, cache, texts + ["a new passage"])
    assert embedder.encoded_texts - before == 4
    assert set(EmbeddingCache(tmp_path, "model-b").get_many(texts)) == set()
    assert set(cache.get_many(["beta hedging", "unseen"])) == {0}
    with pytest.raises(ValueError):
        cache.put_many(["one"], np.zeros((2, embedder.dimension), dtype=np.float32))


def test_embed_passages_keeps_input_order_and_reports_progress(embedder):
    texts = [f"passage number {i} " + "word " * (i * 7 % 40) for i in range(20)]
    calls = []
    batched = embedder.embed_passages(texts, batch_size=2, progress=lambda done, total: calls.append((done, total)))
    single = np.stack([embedder.embed_passages([t])[0] for t in texts[:4]])
    assert np.allclose(batched[:4], single, atol=1e-5)
    assert len(calls) == 3 and calls[-1] == (20, 20) and [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-4)


def test_batches_hold_similar_token_counts_and_order_is_restored(embedder, monkeypatch):
    # Characters and tokens disagree here: a long word is one token or few, "x x x" one per letter.
    texts = ["internationalization " * 6, "x " * 60, "short", "x " * 10, "internationalization " * 40, "y " * 30]
    counts = [embedder.count_tokens(t) for t in texts]
    real = embedder.embed_passages(texts, batch_size=2)
    batches = []

    def spy(batch, batch_size, prompt=None):
        batches.append([embedder.count_tokens(t) for t in batch])
        return np.stack([real[texts.index(t)] for t in batch])

    monkeypatch.setattr(embedder, "_encode", spy)
    again = embedder.embed_passages(texts, batch_size=2)
    flat = [c for batch in batches for c in batch]
    assert flat == sorted(counts, reverse=True)  # longest first by tokens, not by characters
    assert all(len(b) <= 2 for b in batches)
    assert np.array_equal(again, real)  # each row back at its text's position
