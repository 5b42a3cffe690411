"""The bigger-model path end to end: QUANT_RAG_EMBEDDING_PATH alone, pointed at a Qwen3 embedder
folder laid out as Qwen3-Embedding ships it (Qwen3Model weights, a byte-level BPE tokenizer that
appends <|endoftext|>, sentence-transformers' last-token Pooling and Normalize), gives the Qwen3
id, its query instruction on queries only, the model's dimension in the vector store, vectors
keyed apart from the default model's, a server that finds passages and an evaluation that runs.
The model is tiny and random (hidden size 32, two layers), built here: nothing is downloaded."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from corpus.config import QWEN3_EMBEDDING_MODEL, QWEN3_QUERY_INSTRUCTION, ServedConfig
from serving.retrieval.first_stage import dense
from serving.retrieval.input_encoding import hypothetical_vector

DIMENSION = 32
EOS = "<|endoftext|>"
# Small lectures, one with two library dev questions: ingest stays fast and eval has questions.
LECTURES = ["markdown/quantopian_lecture24_leverage.md", "markdown/quantopian_lecture07_variance.md"]
QUESTION = "How does leverage change the risk of a strategy?"


def build_tiny_qwen3(folder: Path) -> Path:
    """A random Qwen3Model saved with the sentence-transformers files of Qwen3-Embedding."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import Qwen3Config, Qwen3Model

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, special_tokens=[EOS], show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tokenizer.train_from_iterator(
        [
            "Leverage multiplies the returns and the risk of a strategy.",
            "The variance of returns measures their dispersion.",
        ],
        trainer,
    )
    eos = tokenizer.token_to_id(EOS)
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"$A {EOS}", pair=f"$A {EOS} $B {EOS}", special_tokens=[(EOS, eos)]
    )
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(
        json.dumps(
            {
                "tokenizer_class": "PreTrainedTokenizerFast",
                "eos_token": EOS,
                "pad_token": EOS,
                "padding_side": "left",
                "model_max_length": 512,
            }
        )
    )
    torch.manual_seed(0)
    config = Qwen3Config(
        vocab_size=tokenizer.get_vocab_size(),
        hidden_size=DIMENSION,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=8,
        max_position_embeddings=512,
        eos_token_id=eos,
        pad_token_id=eos,
        bos_token_id=eos,
    )
    Qwen3Model(config).eval().save_pretrained(folder)
    modules = ["Transformer", "Pooling", "Normalize"]
    (folder / "modules.json").write_text(
        json.dumps(
            [
                {
                    "idx": i,
                    "name": str(i),
                    "path": ["", "1_Pooling", "2_Normalize"][i],
                    "type": f"sentence_transformers.models.{name}",
                }
                for i, name in enumerate(modules)
            ]
        )
    )
    for sub in ("1_Pooling", "2_Normalize"):
        (folder / sub).mkdir(exist_ok=True)
    (folder / "1_Pooling" / "config.json").write_text(
        json.dumps(
            {
                "word_embedding_dimension": DIMENSION,
                "pooling_mode_cls_token": False,
                "pooling_mode_mean_tokens": False,
                "pooling_mode_max_tokens": False,
                "pooling_mode_mean_sqrt_len_tokens": False,
                "pooling_mode_lasttoken": True,
                "include_prompt": True,
            }
        )
    )
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 512, "do_lower_case": False}))
    return folder


@pytest.fixture(scope="module")
def qwen3_folder(tmp_path_factory) -> Path:
    return build_tiny_qwen3(tmp_path_factory.mktemp("tiny-qwen3"))


@pytest.fixture(scope="module")
def qwen3_env(qwen3_folder):
    """Only QUANT_RAG_EMBEDDING_PATH set, as a user switching models would."""
    with pytest.MonkeyPatch.context() as patch:
        for name in (
            "QUANT_RAG_EMBEDDING_MODEL",
            "QUANT_RAG_LATE_INTERACTION",
            "QUANT_RAG_PASSAGE_RUNTIME",
            "QUANT_RAG_QUERY_RUNTIME",
        ):
            patch.delenv(name, raising=False)
        patch.setenv("QUANT_RAG_EMBEDDING_PATH", str(qwen3_folder))
        yield ServedConfig.from_env()


@pytest.fixture(scope="module")
def qwen3_home(qwen3_env, tmp_path_factory) -> Path:
    from library_slice import slice_files

    from corpus.state.layout import StateLayout
    from orchestration.runner import ingest

    home = tmp_path_factory.mktemp("qwen3-state")
    report = ingest(StateLayout(home), slice_files(LECTURES))
    assert not report.set_aside, report.set_aside
    assert all(report.checks.values()), report.checks
    return home


def test_the_folder_alone_selects_the_qwen3_family(qwen3_env, qwen3_folder):
    assert qwen3_env.embedding_model == QWEN3_EMBEDDING_MODEL
    assert qwen3_env.query_instruction == QWEN3_QUERY_INSTRUCTION
    assert not qwen3_env.late_interaction  # MaxSim over a decoder's token states: unmeasured
    assert qwen3_env.weights_key != ServedConfig().weights_key  # switching models re-embeds


def test_the_pooling_is_read_from_the_folder(qwen3_folder, tmp_path):
    from corpus.encoding.embedder import model_folder
    from corpus.model_folder.pooling import pooling_of

    assert pooling_of(qwen3_folder) == "lasttoken"
    assert pooling_of(model_folder(ServedConfig())) == "mean"
    assert pooling_of(tmp_path) is None


def test_a_qwen3_folder_without_last_token_pooling_is_refused(qwen3_folder, tmp_path, monkeypatch):
    from corpus.model_folder.model_identity import ModelPathError

    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "config.json").write_text((qwen3_folder / "config.json").read_text())
    monkeypatch.setenv("QUANT_RAG_EMBEDDING_PATH", str(bare))
    with pytest.raises(ModelPathError, match="last-token pooling"):
        ServedConfig.from_env()


def _sentence_transformers(folder: Path, texts: list[str]) -> np.ndarray:
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(folder), local_files_only=True, device="cpu").encode(
        texts, normalize_embeddings=True, convert_to_numpy=True
    )


def test_the_onnx_graph_and_bfloat16_pool_the_last_token(qwen3_folder, tmp_path):
    from corpus.encoding.bf16_encoder import Bf16Encoder
    from corpus.encoding.onnx_encoder import OnnxEncoder
    from corpus.encoding.onnx_export import export_model, onnx_refusal

    texts = ["leverage", "Leverage multiplies returns and risk; variance grows with its square.", QUESTION]
    reference = _sentence_transformers(qwen3_folder, texts)  # left padding, as Qwen3 ships
    assert onnx_refusal(qwen3_folder) is None
    export_model(qwen3_folder, tmp_path / "model.onnx")
    onnx = OnnxEncoder(tmp_path / "model.onnx", qwen3_folder, "tiny", None, threads=1)
    assert onnx.dimension == DIMENSION
    assert (onnx.embed_texts(texts) * reference).sum(axis=1).min() >= 0.99999
    bf16 = Bf16Encoder(qwen3_folder, "tiny", threads=1)
    assert (bf16.embed_texts(texts) * reference).sum(axis=1).min() >= 0.99  # bfloat16 matmuls


def test_ingest_stores_the_models_dimension_under_its_own_key(qwen3_home, qwen3_env):
    from corpus.state.layout import StateLayout
    from corpus.vectors.vector_store import open_vector_store

    store = open_vector_store(StateLayout(qwen3_home), qwen3_env, DIMENSION, read_only=True)
    try:
        meta = store.get_meta()
        assert meta["dimension"] == DIMENSION and meta["model_key"] == qwen3_env.model_key
        assert meta["model_id"] == QWEN3_EMBEDDING_MODEL and store.count_points() > 0
    finally:
        store.close()


def test_queries_carry_the_instruction_and_passages_do_not(qwen3_home, qwen3_env):
    from corpus.encoding.embedder import QUERY_TEMPLATE
    from corpus.state.layout import StateLayout
    from corpus.state.signature import recorded_signature
    from serving.retrieval.engine import Engine

    layout = StateLayout(qwen3_home)
    engine = Engine(layout, qwen3_env, signature=recorded_signature(layout))
    query = engine.parts.embedder.embed_query(QUESTION)
    assert query.shape == (DIMENSION,)
    folder = Path(qwen3_env.embedding_model_path)
    instructed, plain = _sentence_transformers(
        folder, [QUERY_TEMPLATE.format(instruction=QWEN3_QUERY_INSTRUCTION) + QUESTION, QUESTION]
    )
    assert float(query @ instructed) >= 0.99999
    assert float(query @ plain) < 0.999


def test_a_hypothetical_passage_is_searched_as_a_passage(qwen3_home, qwen3_env):
    """An instruction model embeds the caller's hypothetical passage as the library's passages
    were embedded (no query instruction): the hypothetical-document technique compares passages."""
    from corpus.state.layout import StateLayout
    from corpus.state.signature import recorded_signature
    from serving.retrieval.cooperative import QueryInput
    from serving.retrieval.engine import Engine
    from serving.retrieval.scope import Scope

    layout = StateLayout(qwen3_home)
    engine = Engine(layout, qwen3_env, signature=recorded_signature(layout))
    passage = "Leverage multiplies both the returns and the risk of a strategy, and so its drawdowns."
    vector = hypothetical_vector(engine.parts, passage)
    (plain,) = _sentence_transformers(Path(qwen3_env.embedding_model_path), [passage])
    assert vector is not None and float(vector @ plain) >= 0.9999
    assert float(vector @ engine.parts.embedder.embed_query(passage)) < 0.999  # not the instructed query
    found = engine.retrieve(QUESTION, "hybrid", Scope(), limit=5, others=[QueryInput("hypothetical", passage)])
    expected = dense(engine.parts, passage, len(found.hypothetical_scores), None, vector=vector)
    assert found.hypothetical_scores == tuple(c.score for c in expected)


def test_the_server_finds_passages_with_the_bigger_model(qwen3_home, qwen3_env):
    from corpus.state.layout import StateLayout
    from corpus.state.signature import recorded_signature
    from serving.retrieval.engine import Engine
    from serving.retrieval.scope import Scope

    layout = StateLayout(qwen3_home)
    engine = Engine(layout, qwen3_env, signature=recorded_signature(layout))
    for mode in ("dense", "hybrid"):
        found = engine.retrieve(QUESTION, mode, Scope(), limit=5)
        assert found.hits and found.evidence is not None and not found.late_interaction


def test_evaluation_runs_over_the_bigger_models_state(qwen3_home, qwen3_env, tmp_path, monkeypatch):
    from corpus.state.layout import StateLayout
    from evaluation.cli import evaluate
    from evaluation.tracking import tracking_uri

    monkeypatch.setenv("MLFLOW_TRACKING_URI", tracking_uri(tmp_path / "mlflow"))
    summary = evaluate(StateLayout(qwen3_home), qwen3_env, "library", ["dense", "hybrid"], limit=3)
    assert summary["questions"] >= 1
    assert {"dense", "hybrid"} <= set(summary["arms"]) and summary["mlflow"]["runs"]


def test_auto_embeds_on_the_gpu_where_torch_sees_one(monkeypatch):
    import torch

    import corpus.encoding.embedder as embedder_module
    from corpus.encoding.bf16_encoder import resolved_passage_runtime

    assert embedder_module.embedding_device() == ("cuda" if torch.cuda.is_available() else "cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert embedder_module.embedding_device() == "cuda"
    assert resolved_passage_runtime("auto") == "torch"
    assert resolved_passage_runtime("onnx") == "onnx"


def test_a_model_past_the_onnx_limit_embeds_with_torch_and_says_why(qwen3_folder, tmp_path):
    import shutil

    from corpus.encoding.onnx_export import onnx_refusal

    big = shutil.copytree(qwen3_folder, tmp_path / "big")
    settings = json.loads((big / "config.json").read_text())
    (big / "config.json").write_text(json.dumps({**settings, "dtype": "bfloat16"}))
    with (big / "model.safetensors").open("r+b") as handle:  # sparse: 1.2 GB of bfloat16 on paper
        handle.truncate(1_200_000_000)
    assert "2 GiB" in onnx_refusal(big)


def test_ingestion_runtimes_cover_the_last_token_model(qwen3_home, qwen3_env, monkeypatch, caplog):
    import corpus.encoding.onnx_export as onnx_export
    from corpus.encoding.embedder import load_embedder
    from corpus.state.layout import StateLayout

    layout, embedder = StateLayout(qwen3_home), load_embedder(qwen3_env)
    texts = ["Leverage multiplies the returns and the risk.", "variance"]
    torch_vectors = embedder.embed_passages(texts)
    for runtime in ("onnx", "torch-bf16"):
        config = qwen3_env.model_copy(update={"passage_runtime": runtime})
        with onnx_export.ingest_runtime(embedder, layout, config) as used:
            assert used == runtime
            vectors = embedder.embed_passages(texts)
            if runtime == "torch-bf16":  # the embedder's transformer, not a second copy
                assert embedder.passage_runtime.model is embedder.model[0].auto_model
        assert (vectors * torch_vectors).sum(axis=1).min() >= (0.99999 if runtime == "onnx" else 0.99)
    monkeypatch.setattr(onnx_export, "onnx_refusal", lambda folder: "its float32 weights pass 2 GiB")
    onnx = qwen3_env.model_copy(update={"passage_runtime": "onnx"})
    with onnx_export.ingest_runtime(embedder, layout, onnx) as used:
        assert used == "torch"
    assert "pass 2 GiB" in caplog.text
