"""The batched query encoding and grouped MaxSim equal their one-text forms."""

from __future__ import annotations

import numpy as np

from corpus.config import ServedConfig
from corpus.encoding.embedder import model_folder
from corpus.encoding.token_encoder import load_token_encoder, padding_groups
from corpus.indexes.token_index import TokenIndex
from corpus.state.layout import StateLayout
from corpus.state.signature import recorded_signature

TEXTS = [
    "What does kurtosis measure?",
    "excess kurtosis leptokurtic returns",
    "Value at risk is the loss that a portfolio exceeds with a given small probability over a "
    "horizon; historical simulation reads it from the empirical distribution of past returns, "
    "and conditional value at risk averages the losses beyond it. " * 3,
]


def test_padding_groups_keep_short_texts_together_and_a_long_one_apart():
    assert padding_groups([20, 12, 300, 18]) == [[1, 3, 0], [2]]
    assert padding_groups([100, 110, 120]) == [[0, 1, 2]]
    assert sorted(i for g in padding_groups([5, 400, 90, 200, 7]) for i in g) == [0, 1, 2, 3, 4]


def test_queries_equal_query_for_every_text_and_grouped_maxsim_equals_maxsim(served_home):
    layout, config = StateLayout(served_home), ServedConfig()
    encoder = load_token_encoder(layout, config, model_folder(config), None)
    batched = encoder.queries(TEXTS)
    for text, (vector, tokens) in zip(TEXTS, batched):
        alone_vector, alone_tokens = encoder.query(text)
        assert tokens.shape == alone_tokens.shape
        assert float(vector @ alone_vector) >= 0.99999
        assert np.allclose(tokens, alone_tokens, atol=2e-4)
    index = TokenIndex.for_state(layout, config.weights_key, recorded_signature(layout))
    chunk_ids = list(index.spans)[:30]
    grouped = index.maxsim_groups([t for _, t in batched], chunk_ids)
    for (_, tokens), found in zip(batched, grouped):
        alone = index.maxsim(tokens, chunk_ids)
        assert found.keys() == alone.keys()
        assert all(abs(found[c] - alone[c]) < 1e-5 for c in alone)
