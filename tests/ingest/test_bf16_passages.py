"""Passages embedded in bfloat16 are float vectors: within the measured floor of torch's float32
ones, keyed alike, with their token vectors cached as they are embedded; "auto" chooses bfloat16
only where the CPU advertises bfloat16 arithmetic (AMX tiles or AVX-512 BF16)."""

from __future__ import annotations

import numpy as np

import corpus.encoding.bf16_encoder as bf16_encoder
from corpus.config import ServedConfig
from corpus.encoding.bf16_encoder import Bf16Encoder, has_native_bf16, resolved_passage_runtime
from corpus.encoding.embedder import load_embedder, model_folder
from corpus.encoding.onnx_export import ingest_runtime
from corpus.encoding.token_cache import TokenCache
from corpus.encoding.token_encoder import load_token_encoder
from corpus.ids import sha256_hex
from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout
from ingest.indexes.embed import passage_texts

# bfloat16 passages vs float32 (384 library pieces): min 0.99996, mean 0.999982; whole library
# (4,104 pieces, benchmarks/ingest_library.py parity): min 0.999959, mean 0.999983.
BF16_MIN_COSINE, BF16_MEAN_COSINE = 0.9999, 0.99995
TOKEN_MIN_COSINE = 0.995  # per token, against the float32 token graph


def _texts(layout: StateLayout, embedder, count: int) -> list[str]:
    reader = CorpusReader.open(layout)
    _, texts = passage_texts(embedder, ((reader.title(p.document_id), p) for p in reader.passages.values()))
    return sorted(set(texts))[:count]


def test_native_bfloat16_is_read_from_the_cpu_flags(tmp_path):
    flags = {
        "amx": "fpu sse2 avx512f amx_bf16 amx_tile amx_int8",  # Intel Sapphire Rapids
        "avx512": "fpu sse2 avx512f avx512_vnni avx512_bf16",  # AMD Zen 4/5, Cooper Lake
        "plain": "fpu sse2 avx2 avx512f avx512_vnni amx_tile amx_int8 avx512_bf16x",
    }  # none
    for name, line in flags.items():
        (tmp_path / name).write_text(f"processor\t: 0\nflags\t\t: {line}\n")
    assert has_native_bf16(tmp_path / "amx") and has_native_bf16(tmp_path / "avx512")
    assert not has_native_bf16(tmp_path / "plain")  # whole flags only: no prefix or look-alike
    assert not has_native_bf16(tmp_path / "missing")  # not Linux: no bfloat16 assumed


def test_auto_means_bfloat16_only_where_the_cpu_has_it(monkeypatch):
    monkeypatch.setattr(bf16_encoder, "has_native_bf16", lambda: True)
    assert resolved_passage_runtime("auto") == "torch-bf16"
    monkeypatch.setattr(bf16_encoder, "has_native_bf16", lambda: False)
    assert resolved_passage_runtime("auto") == "onnx"  # emulated bfloat16 would be slower
    for runtime in ("onnx", "onnx-int8", "torch", "torch-bf16"):
        assert resolved_passage_runtime(runtime) == runtime
    assert ServedConfig(passage_runtime="torch-bf16").model_key == ServedConfig(passage_runtime="onnx").model_key


def test_bfloat16_passages_are_float_vectors_and_cache_their_tokens(state_copy):
    layout, config = StateLayout(state_copy), ServedConfig(passage_runtime="torch-bf16")
    assert config.late_interaction
    embedder = load_embedder(config)
    texts = _texts(layout, embedder, 48)
    cache = TokenCache(layout, config.weights_key)
    for stale in cache.path.parent.glob(cache.path.name + "*"):  # the slice's ingest filled it
        stale.unlink()
    cache = TokenCache(layout, config.weights_key)
    with ingest_runtime(embedder, layout, config) as runtime:
        assert runtime == "torch-bf16" and isinstance(embedder.passage_runtime, Bf16Encoder)
        vectors = embedder.embed_passages(texts)
    assert embedder.passage_runtime is None  # the shared embedder is torch again
    reference = embedder.model.encode(texts, normalize_embeddings=True)
    cosines = (vectors * reference).sum(axis=1)
    assert cosines.min() >= BF16_MIN_COSINE and cosines.mean() >= BF16_MEAN_COSINE, cosines.min()
    assert cosines.min() < 0.999999  # bfloat16 really ran: float32 runtimes agree to 1e-6
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)

    cached = cache.get_many(texts)  # written by the embedding pass itself
    assert set(cached) == {sha256_hex(t) for t in texts}
    graph = load_token_encoder(layout, config, model_folder(config), None)
    float_tokens = graph.passage_tokens(texts[:8])
    for text, expected in zip(texts[:8], float_tokens):
        codes, scales = cached[sha256_hex(text)]
        rows = codes.astype(np.float32) * scales[:, None]
        assert rows.shape == expected.shape  # [CLS] … [SEP], padding dropped
        per_token = (rows * expected).sum(axis=1) / np.linalg.norm(rows, axis=1)
        assert per_token.min() >= TOKEN_MIN_COSINE, per_token.min()
