"""The ONNX export gives the torch vectors, and the server falls back to transformers without it."""

from __future__ import annotations

import logging
import shutil

import numpy as np
import pytest

from corpus.config import ServedConfig
from corpus.embedder import Embedder, load_embedder, model_folder
from corpus.onnx_encoder import OnnxEncoder, onnx_file
from corpus.onnx_export import SOURCE_FILE, ensure_exported
from corpus.query_encoder import QueryEncoder, load_query_encoder
from corpus.reader import CorpusReader
from corpus.state import StateLayout, atomic_write_json

MIN_COSINE = 0.999


@pytest.fixture(scope="module")
def onnx_home(served_home, tmp_path_factory):
    """A copy of the served state with the model exported into it, as ingestion does."""
    home = tmp_path_factory.mktemp("onnx") / "state"
    shutil.copytree(served_home, home)
    assert ensure_exported(StateLayout(home), ServedConfig()) == StateLayout(home).onnx_model(
        ServedConfig().model_key)
    return home


def test_onnx_vectors_equal_torch_over_every_passage(onnx_home):
    config = ServedConfig()
    layout = StateLayout(onnx_home)
    encoder = load_query_encoder(config, layout)
    assert isinstance(encoder, OnnxEncoder)
    embedder = load_embedder(config)
    assert (encoder.dimension, encoder.max_tokens) == (embedder.dimension, embedder.max_tokens)
    reader = CorpusReader.open(layout)
    texts = [f"{reader.documents[p.document_id].title}\n{p.text}" for p in reader.passages.values()]
    assert len(texts) > 20
    cosines = (encoder.embed_texts(texts, batch_size=8) * embedder.embed_passages(texts)).sum(axis=1)
    assert cosines.min() >= MIN_COSINE, cosines.min()
    long_text = "How is conditional value at risk estimated from historical returns? " * 40  # > 256 tokens
    for text in ("volatility clustering", "GARCH(1,1) with Student-t innovations", long_text):
        assert float(encoder.embed_query(text) @ embedder._encode([text], batch_size=1)[0]) >= MIN_COSINE


def test_the_query_instruction_reaches_the_onnx_encoder(onnx_home):
    instructed = ServedConfig(query_instruction="Retrieve quant passages.")
    encoder = load_query_encoder(instructed, StateLayout(onnx_home))
    assert isinstance(encoder, OnnxEncoder)
    base = load_embedder(ServedConfig())
    reference = Embedder(base.model, base.model_id, instructed.query_instruction)
    expected = reference._encode(["beta hedging"], batch_size=1, prompt=reference.query_prompt)[0]
    assert float(encoder.embed_query("beta hedging") @ expected) >= MIN_COSINE


def test_without_an_export_the_server_falls_back_with_a_warning(served_home, caplog):
    with caplog.at_level(logging.WARNING, logger="corpus.onnx_encoder"):
        encoder = load_query_encoder(ServedConfig(), StateLayout(served_home))
    assert isinstance(encoder, QueryEncoder)
    assert any("no ONNX export" in r.getMessage() for r in caplog.records)
    assert isinstance(load_query_encoder(ServedConfig(query_runtime="torch"), StateLayout(served_home)),
                      QueryEncoder)


def test_export_is_redone_only_when_the_weights_change(onnx_home):
    layout, config = StateLayout(onnx_home), ServedConfig()
    graph = layout.onnx_model(config.model_key)
    stamp = graph.stat().st_mtime_ns
    ensure_exported(layout, config)
    assert graph.stat().st_mtime_ns == stamp
    atomic_write_json(graph.parent / SOURCE_FILE, {"folder": "elsewhere", "files": {}})
    ensure_exported(layout, config)
    assert graph.stat().st_mtime_ns != stamp


def test_int8_arm_is_a_separate_file_and_stays_close(onnx_home):
    layout, config = StateLayout(onnx_home), ServedConfig(query_runtime="onnx-int8")
    path = ensure_exported(layout, config)
    assert path == onnx_file(layout, config) != layout.onnx_model(config.model_key)
    encoder = OnnxEncoder(path, model_folder(config), config.embedding_model, None)
    reference = load_embedder(ServedConfig())._encode(["volatility clustering"], batch_size=1)[0]
    vector = encoder.embed_query("volatility clustering")
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-4
    assert float(vector @ reference) > 0.97  # measured ≈ 0.99 (passages min 0.986): not the default


@pytest.mark.slow
def test_the_pipeline_exports_the_query_model(ingested_home):
    """Ingestion leaves the ONNX graph the server loads, and the server then uses it."""
    layout, config = StateLayout(ingested_home), ServedConfig()
    assert layout.onnx_model(config.model_key).exists()
    assert isinstance(load_query_encoder(config, layout), OnnxEncoder)
