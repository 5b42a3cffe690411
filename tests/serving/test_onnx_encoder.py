"""The ONNX export gives the torch vectors, its int8 graph (passages, opt-in) stays within the
measured floor, and the server falls back to transformers without an export."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from shared_state import copy_state

from corpus.config import ServedConfig
from corpus.encoding.embedder import Embedder, load_embedder, model_folder
from corpus.encoding.onnx_encoder import INT8_SUFFIX, OnnxEncoder, onnx_file, passage_file, token_graph_file
from corpus.encoding.onnx_export import SOURCE_FILE, TOKEN_SOURCE_FILE, ensure_exported, ensure_query_graphs
from corpus.encoding.onnx_fusion import GRAPH_RECIPE
from corpus.encoding.query_encoder import QueryEncoder, load_query_encoder
from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout, atomic_write_json, read_json

MIN_COSINE = 0.999
# int8 passages vs float32 (benchmarks/int8_variants.py, 300 library pieces): mean 0.996, min 0.991;
# the whole library (4,104 pieces) mean 0.9957, min 0.9900. Floors a little under what was measured.
INT8_MIN_COSINE, INT8_MEAN_COSINE = 0.985, 0.993
INT8 = ServedConfig(passage_runtime="onnx-int8")  # the opt-in


@pytest.fixture(scope="module")
def onnx_home(served_home, tmp_path_factory):
    """A copy of the served state with the model exported into it, as ingestion does."""
    home = tmp_path_factory.mktemp("onnx") / "state"
    copy_state(served_home, home)
    assert ensure_exported(StateLayout(home), ServedConfig()) == StateLayout(home).onnx_model(
        ServedConfig().weights_key
    )
    assert not passage_file(StateLayout(home), INT8).exists()  # the default quantises nothing
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


def test_without_an_export_the_server_falls_back_with_a_warning(unexported_home, caplog):
    with caplog.at_level(logging.WARNING, logger="corpus.encoding.onnx_encoder"):
        encoder = load_query_encoder(ServedConfig(), StateLayout(unexported_home))
    assert isinstance(encoder, QueryEncoder)
    assert any("no ONNX export" in r.getMessage() for r in caplog.records)
    assert isinstance(
        load_query_encoder(ServedConfig(query_runtime="torch"), StateLayout(unexported_home)), QueryEncoder
    )


def test_export_is_redone_only_when_the_weights_change(onnx_home):
    layout, config = StateLayout(onnx_home), INT8
    ensure_exported(layout, config)  # the opt-in adds the int8 graph beside the float one
    graph, int8 = layout.onnx_model(config.weights_key), passage_file(layout, config)
    stamps = graph.stat().st_mtime_ns, int8.stat().st_mtime_ns
    stale = graph.with_name("model.int8.onnx")  # an older recipe's graph
    stale.write_bytes(b"")
    ensure_exported(layout, config)
    assert (graph.stat().st_mtime_ns, int8.stat().st_mtime_ns) == stamps and not stale.exists()
    atomic_write_json(graph.parent / SOURCE_FILE, {"folder": "elsewhere", "files": {}})
    ensure_exported(layout, config)
    assert graph.stat().st_mtime_ns != stamps[0] and int8.stat().st_mtime_ns != stamps[1]


def test_opted_in_passages_embed_on_the_int8_graph_within_the_floor_and_queries_stay_float(onnx_home):
    layout, config = StateLayout(onnx_home), INT8
    ensure_exported(layout, config)
    assert onnx_file(layout, config) == layout.onnx_model(config.weights_key)  # queries: float32
    int8 = passage_file(layout, config)
    assert int8.name.endswith(INT8_SUFFIX) and int8.exists()  # exported with the query graph
    assert onnx_file(layout, ServedConfig(query_runtime="onnx-int8")) == int8  # the query arm: one int8 graph
    assert passage_file(layout, ServedConfig()) == onnx_file(layout, config)  # the default: float32
    encoder = OnnxEncoder(int8, model_folder(config), config.embedding_model, None, threads=2)
    reader = CorpusReader.open(layout)
    texts = [f"{reader.documents[p.document_id].title}\n{p.text}" for p in reader.passages.values()]
    cosines = (encoder.embed_texts(texts, batch_size=8) * load_embedder(config).embed_passages(texts)).sum(axis=1)
    assert cosines.min() >= INT8_MIN_COSINE and cosines.mean() >= INT8_MEAN_COSINE, (cosines.min(), cosines.mean())
    assert cosines.min() < 0.9999  # really int8: a float graph would give ≥ 0.999 999
    assert abs(float(np.linalg.norm(encoder.embed_query("volatility clustering"))) - 1.0) < 1e-4


@pytest.mark.slow
def test_the_pipeline_exports_the_query_model(ingested_home):
    """Ingestion leaves the ONNX graph the server loads, and the server then uses it."""
    layout, config = StateLayout(ingested_home), ServedConfig()
    assert passage_file(layout, config) == layout.onnx_model(config.weights_key)  # passages: float32
    assert layout.onnx_model(config.weights_key).exists() and not passage_file(layout, INT8).exists()
    assert isinstance(load_query_encoder(config, layout), OnnxEncoder)


def test_both_exports_are_fused_and_an_export_by_an_older_recipe_is_redone(onnx_home):
    import onnx

    layout, config = StateLayout(onnx_home), ServedConfig()
    graph = layout.onnx_model(config.weights_key)
    for path in (graph, token_graph_file(layout, config)):  # the query graph and ingestion's token graph
        ops = {node.op_type for node in onnx.load(str(path), load_external_data=False).graph.node}
        assert "Attention" in ops and "Softmax" not in ops, (path.name, sorted(ops))  # one fused op per layer
    sidecar = graph.parent / SOURCE_FILE
    older = {key: value for key, value in read_json(sidecar).items() if key != "graph"}  # before fusions
    stamp = graph.stat().st_mtime_ns
    atomic_write_json(sidecar, older)
    ensure_exported(layout, config)
    assert graph.stat().st_mtime_ns != stamp and read_json(sidecar)["graph"] == GRAPH_RECIPE


def test_the_served_token_graph_of_an_older_recipe_is_redone_with_nothing_to_embed(onnx_home):
    """vector_index ensures every graph the server loads, not only those ingestion embeds with."""
    layout, config = StateLayout(onnx_home), ServedConfig()
    graph = token_graph_file(layout, config)
    ensure_query_graphs(layout, config)
    sidecar = graph.with_name(TOKEN_SOURCE_FILE)
    atomic_write_json(sidecar, {key: value for key, value in read_json(sidecar).items() if key != "graph"})
    stamp = graph.stat().st_mtime_ns
    ensure_query_graphs(layout, config.model_copy(update={"late_interaction": False}))
    assert graph.stat().st_mtime_ns == stamp  # without late interaction the server does not load it
    ensure_query_graphs(layout, config)
    assert graph.stat().st_mtime_ns != stamp and read_json(sidecar)["graph"] == GRAPH_RECIPE
