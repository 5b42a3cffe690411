"""The ONNX path beyond the packaged BERT: a model without segment ids (MPNet, as
all-mpnet-base-v2 behind QUANT_RAG_EMBEDDING_PATH) is exported with the inputs it takes, left
unfused, and gives transformers' own mean-pooled vectors. The model is a tiny random MPNet built
here with the packaged MiniLM's tokenizer, so no weights are fetched."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest

from corpus.config import ServedConfig
from corpus.encoding.embedder import model_folder
from corpus.encoding.onnx_export import export_model
from corpus.encoding.token_encoder import TokenEncoder

TEXTS = [
    "volatility clustering",
    "GARCH(1,1) with Student-t innovations and a leverage term",
    "How is conditional value at risk estimated from historical returns?",
]


@pytest.fixture(scope="module")
def tiny_mpnet(tmp_path_factory) -> Path:
    import torch
    from transformers import MPNetConfig, MPNetModel

    folder = tmp_path_factory.mktemp("tiny-mpnet")
    packaged = model_folder(ServedConfig())
    for name in (
        "tokenizer.json",
        "tokenizer_config.json",
        "vocab.txt",
        "special_tokens_map.json",
        "sentence_bert_config.json",
        "modules.json",
    ):
        shutil.copy(packaged / name, folder / name)
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text(
        json.dumps({"word_embedding_dimension": 32, "pooling_mode_mean_tokens": True})
    )
    torch.manual_seed(0)
    config = MPNetConfig(
        vocab_size=30527,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=514,
    )
    MPNetModel(config).eval().save_pretrained(folder)
    return folder


def _reference(folder: Path, texts: list[str]) -> np.ndarray:
    """transformers' last hidden state, attention-masked mean, L2-normalised (sentence-transformers' pipeline)."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    model = AutoModel.from_pretrained(str(folder), local_files_only=True).eval()
    batch = tokenizer(
        texts, padding=True, truncation=True, max_length=256, return_tensors="pt", return_token_type_ids=False
    )
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    return torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=-1).numpy()


def test_a_model_without_segment_ids_exports_with_two_inputs_and_torch_vectors(tiny_mpnet, tmp_path):
    graph = tmp_path / "tokens.onnx"
    export_model(tiny_mpnet, graph, tokens=True)
    loaded = onnx.load(str(graph), load_external_data=False)
    assert [i.name for i in loaded.graph.input] == ["input_ids", "attention_mask"]
    assert loaded.producer_name == "pytorch"  # BERT's fusions do not apply: left as exported
    encoder = TokenEncoder(graph, tiny_mpnet, "tiny-mpnet", None, threads=1)
    assert encoder.dimension == 32
    cosines = (encoder.embed_texts(TEXTS) * _reference(tiny_mpnet, TEXTS)).sum(axis=1)
    assert cosines.min() >= 0.99999, cosines
    pooled, tokens = encoder.query(TEXTS[2])
    assert tokens.shape[1] == 32 and np.allclose(np.linalg.norm(tokens, axis=1), 1.0, atol=1e-5)
    assert float(pooled @ _reference(tiny_mpnet, TEXTS[2:])[0]) >= 0.99999
