"""The query-only encoder gives the same vectors as the full sentence-transformers Embedder."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from corpus.config import ServedConfig
from corpus.encoding.embedder import Embedder, load_embedder
from corpus.encoding.query_encoder import QueryEncoder, is_plain_mean_pooling, load_query_encoder


def test_query_vectors_equal_sentence_transformers(tmp_path):
    config = ServedConfig()
    encoder = load_query_encoder(config)
    assert isinstance(encoder, QueryEncoder)
    embedder = load_embedder(config)
    assert (encoder.dimension, encoder.max_tokens) == (embedder.dimension, embedder.max_tokens)
    long_text = "How is conditional value at risk estimated from historical returns? " * 40  # > 256 tokens
    for text in ("volatility clustering", "GARCH(1,1) with Student-t innovations", long_text):
        reference = embedder._encode([text], batch_size=1)[0]
        assert np.allclose(encoder.embed_query(text), reference, atol=1e-6)
    instructed = ServedConfig(query_instruction="Retrieve quant passages.")
    reference = Embedder(embedder.model, embedder.model_id, instructed.query_instruction)
    expected = reference._encode(["beta hedging"], batch_size=1, prompt=reference.query_prompt)[0]
    assert np.allclose(load_query_encoder(instructed).embed_query("beta hedging"), expected, atol=1e-6)


def test_other_architectures_fall_back_to_the_embedder(tmp_path):
    (tmp_path / "modules.json").write_text('[{"type": "sentence_transformers.models.Transformer"}]')
    assert not is_plain_mean_pooling(tmp_path)
    assert not is_plain_mean_pooling(tmp_path / "missing")


def test_loading_the_query_encoder_does_not_import_sentence_transformers():
    code = (
        "import sys; from corpus.config import ServedConfig; "
        "from corpus.encoding.query_encoder import load_query_encoder;"
        "v = load_query_encoder(ServedConfig()).embed_query('risk parity');"
        "sys.exit(0 if 'sentence_transformers' not in sys.modules and v.shape == (384,) else 1)"
    )
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120).returncode == 0
