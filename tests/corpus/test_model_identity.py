"""Model identity in ServedConfig.model_key, and model paths checked when the configuration is read."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from corpus.config import ServedConfig
from corpus.model_folder.model_identity import ModelPathError, weights_fingerprint

REPO = Path(__file__).resolve().parents[2]
LIBRARY_STATE_KEY = "5f58cffc993e"  # the packaged MiniLM's key: states built before stay valid


def _model(folder: Path, seed: int) -> Path:
    """A model-shaped folder: same config and file sizes for every seed, different weights."""
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"hidden_size": 384}')
    weights = np.random.default_rng(seed).standard_normal(600_000).astype(np.float32)
    (folder / "model.safetensors").write_bytes(weights.tobytes())
    return folder


def test_the_weights_not_the_name_make_the_key(tmp_path):
    first, second = _model(tmp_path / "a", 1), _model(tmp_path / "b", 2)
    key = lambda folder: ServedConfig(embedding_model_path=str(folder)).model_key  # noqa: E731
    assert key(first) != key(second)  # same id, revision, names, sizes and config
    moved = shutil.copytree(first, tmp_path / "elsewhere")
    assert key(moved) == key(first)  # the same weights anywhere share cached vectors
    assert key(first) != ServedConfig().model_key
    assert ServedConfig().model_key == ServedConfig().weights_key == LIBRARY_STATE_KEY
    weights = np.frombuffer((first / "model.safetensors").read_bytes(), dtype=np.float32)
    (first / "model.safetensors").write_bytes((weights * 1.001).tobytes())  # a fine-tune: all move
    assert key(first) != key(moved)


def test_int8_passage_vectors_have_their_own_key_and_float_runtimes_share_one(monkeypatch):
    float_keys = {ServedConfig(passage_runtime=r).model_key for r in ("auto", "onnx", "torch", "torch-bf16")}
    assert float_keys == {LIBRARY_STATE_KEY}  # float states built before stay valid with a float runtime
    assert ServedConfig().passage_runtime == "auto"  # the default embeds float vectors (bf16 or float32)
    int8 = ServedConfig(passage_runtime="onnx-int8")  # the opt-in
    assert int8.model_key not in float_keys  # opting in re-embeds
    assert int8.weights_key == LIBRARY_STATE_KEY  # one ONNX export serves both
    assert int8.config_hash() != ServedConfig(passage_runtime="onnx").config_hash()
    monkeypatch.setenv("QUANT_RAG_PASSAGE_RUNTIME", "onnx-int8")
    assert ServedConfig.from_env().model_key == int8.model_key


def test_a_missing_model_folder_names_its_variable(monkeypatch, tmp_path):
    for variable in ("QUANT_RAG_EMBEDDING_PATH", "QUANT_RAG_RERANKER_PATH"):
        monkeypatch.setenv(variable, str(tmp_path / "missing"))
        with pytest.raises(ModelPathError, match=variable):
            ServedConfig.from_env()
        monkeypatch.setenv(variable, str(_model(tmp_path / variable, 3)))
        assert ServedConfig.from_env()  # an existing folder is accepted
        monkeypatch.delenv(variable)
    with pytest.raises(ModelPathError, match="QUANT_RAG_EMBEDDING_PATH"):
        weights_fingerprint(tmp_path / "missing")


@pytest.mark.parametrize(
    "command", [["-m", "serving.server"], ["-m", "cli.main", "search", "var"], ["-m", "cli.main", "doctor"]]
)
def test_server_and_cli_refuse_to_start_on_a_missing_reranker(tmp_path, command):
    env = {**os.environ, "QUANT_RAG_HOME": str(tmp_path), "QUANT_RAG_RERANKER_PATH": str(tmp_path / "nope")}
    done = subprocess.run(
        [sys.executable, *command],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "configuration error" in done.stderr and "QUANT_RAG_RERANKER_PATH" in done.stderr
    assert "Traceback" not in done.stderr
