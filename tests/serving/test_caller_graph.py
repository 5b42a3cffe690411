"""A caller's rephrasings and hypothetical passage are embedded by the int8 quantisation of the
token graph (ServedConfig.caller_runtime), the question by the float32 graph: ingestion writes the
int8 graph, redoes it only when the token graph changes, and an older state falls back."""

from __future__ import annotations

import logging
import os
import shutil

import numpy as np

from corpus.config import ServedConfig
from corpus.encoding.onnx_encoder import INT8_SUFFIX, caller_graph_file, token_graph_file
from corpus.encoding.onnx_export import ensure_query_graphs
from corpus.state.layout import StateLayout
from corpus.state.signature import recorded_signature
from serving.retrieval.cooperative import QueryInput
from serving.retrieval.engine import Engine
from serving.retrieval.first_stage import dense
from serving.retrieval.input_encoding import hypothetical_vector
from serving.retrieval.scope import Scope

QUESTION = "How is conditional value at risk estimated from historical returns?"
ALTERNATIVES = [
    "expected shortfall from the empirical distribution of past returns",
    "historical simulation of CVaR as the mean loss beyond the VaR quantile",
]
HYPOTHETICAL = (
    "Historical expected shortfall sorts the observed returns, takes the value at risk as the "
    "empirical quantile at the chosen level and averages the losses that exceed it."
)


def _engine(home, **settings) -> Engine:
    layout = StateLayout(home)
    return Engine(layout, ServedConfig(**settings), signature=recorded_signature(layout))


def test_ingestion_quantises_the_token_graph_for_callers_inputs(served_home):
    layout, config = StateLayout(served_home), ServedConfig()
    graph = caller_graph_file(layout, config)
    assert config.caller_runtime == "onnx-int8" and graph.name.endswith(INT8_SUFFIX) and graph.exists()
    assert graph != token_graph_file(layout, config)
    assert caller_graph_file(layout, ServedConfig(caller_runtime="onnx")) == token_graph_file(layout, config)


def test_the_caller_graph_is_redone_only_when_the_token_graph_changes(served_copy):
    layout, config = StateLayout(served_copy), ServedConfig()
    graph, tokens = caller_graph_file(layout, config), token_graph_file(layout, config)
    stamp = graph.stat().st_mtime_ns
    ensure_query_graphs(layout, config)
    assert graph.stat().st_mtime_ns == stamp  # nothing changed: not quantised again
    fresh = tokens.with_name("fresh.onnx")  # a token graph exported after the quantisation: a new
    shutil.copyfile(tokens, fresh)  # file, not the shared state's (copy_state links files)
    os.replace(fresh, tokens)
    os.utime(tokens, ns=(stamp + 10**9, stamp + 10**9))
    ensure_query_graphs(layout, config)
    assert graph.exists() and graph.stat().st_mtime_ns != stamp
    ensure_query_graphs(layout, ServedConfig(caller_runtime="onnx"))
    assert not graph.exists() and tokens.exists()  # float32 callers: the int8 graph goes


def test_callers_inputs_are_int8_and_the_question_stays_float32(served_home):
    engine = _engine(served_home)
    index, question_encoder = engine.parts.tokens
    callers = engine.parts.caller_encoder
    assert callers is not None and callers is not question_encoder
    texts = [*ALTERNATIVES, HYPOTHETICAL]
    cosines = np.array(
        [float(a @ b) for (a, _), (b, _) in zip(callers.queries(texts), question_encoder.queries(texts))]
    )
    assert cosines.min() > 0.98 and cosines.min() < 0.99999  # close to float32, and really int8
    others = [QueryInput("alternative", a) for a in ALTERNATIVES] + [QueryInput("hypothetical", HYPOTHETICAL)]
    bare = engine.retrieve(QUESTION, "hybrid", Scope(), limit=10)
    fused = engine.retrieve(QUESTION, "hybrid", Scope(), limit=10, others=others)
    # the question's dense similarities, bare or fused, are the float32 graph's to the last bit
    vector = question_encoder.queries([QUESTION])[0][0]
    float32 = tuple(c.score for c in dense(engine.parts, QUESTION, len(bare.dense_scores), None, vector=vector))
    assert fused.dense_scores == bare.dense_scores == float32 and fused.hypothetical_scores
    assert [c.input.kind for c in fused.inputs] == ["question", "alternative", "alternative", "hypothetical"]


def test_without_a_query_instruction_a_hypothetical_passage_is_embedded_as_a_query(served_home):
    assert hypothetical_vector(_engine(served_home).parts, HYPOTHETICAL) is None  # MiniLM: the same vector


def test_float32_callers_share_the_question_encoder(served_home):
    engine = _engine(served_home, caller_runtime="onnx")
    assert engine.parts.caller_encoder is engine.parts.tokens[1]


def test_a_state_without_the_caller_graph_embeds_callers_as_the_question_with_a_warning(served_copy, caplog):
    caller_graph_file(StateLayout(served_copy), ServedConfig()).unlink()
    engine = _engine(served_copy)
    with caplog.at_level(logging.WARNING, logger="serving.retrieval.input_encoding"):
        assert engine.parts.caller_encoder is engine.parts.tokens[1]
    assert "quant-rag ingest" in caplog.text
    found = engine.retrieve(QUESTION, "hybrid", Scope(), limit=5, others=[QueryInput("alternative", ALTERNATIVES[0])])
    assert found.hits and len(found.inputs) == 2


def test_a_bare_search_never_opens_the_callers_graph(served_home):
    engine = _engine(served_home)
    assert engine.retrieve(QUESTION, "hybrid", Scope(), limit=5).hits
    assert engine.parts.is_open("tokens") and not engine.parts.is_open("callers")
