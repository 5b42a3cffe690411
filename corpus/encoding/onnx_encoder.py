"""The server's torch-free encoder: the packaged MiniLM exported to ONNX, run by ONNX Runtime.

The graph holds the whole sentence-transformers pipeline (transformer → attention-masked mean →
L2 normalisation), so its output is the stored vector itself; tests check it against
`SentenceTransformer.encode` over every passage of a state. Tokenisation reads the model's
tokenizer.json with the `tokenizers` library: nothing here imports torch or transformers.
The export (corpus.encoding.onnx_export) needs torch and runs at ingest time.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path

import numpy as np

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from corpus.versions import INT8_RECIPE

log = logging.getLogger(__name__)

# The graph's inputs; models without segment ids (MPNet, RoBERTa) are exported without the last.
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_ENCODING_FIELD = {"input_ids": "ids", "attention_mask": "attention_mask", "token_type_ids": "type_ids"}
# Two threads where the process may use two cores. torch's pool, waiting for a core that a
# competing process held, stalled queries under load. ONNX Runtime's pool
# without spinning does not: its calling thread takes the chunks a delayed worker has not started.
# Two threads measured faster at the wire than one, idle and beside a CPU hog, for a little more
# server CPU (benchmarks/wire_ab.py; docs/measurements.md, Serving).
QUERY_THREADS = min(2, len(os.sched_getaffinity(0)))
INT8_SUFFIX = f".{INT8_RECIPE}.onnx"


def _graph(layout: StateLayout, config: ServedConfig, runtime: str) -> Path:
    path = layout.onnx_model(config.weights_key)
    return path.with_name(path.stem + INT8_SUFFIX) if runtime == "onnx-int8" else path


def onnx_file(layout: StateLayout, config: ServedConfig) -> Path:
    """The graph the server embeds queries with: float32, or (an arm) its int8 quantisation."""
    return _graph(layout, config, config.query_runtime)


def passage_file(layout: StateLayout, config: ServedConfig) -> Path:
    """The graph ingestion embeds passages with (ServedConfig.passage_runtime, "onnx" or "onnx-int8")."""
    return _graph(layout, config, config.passage_runtime)


def token_graph_file(layout: StateLayout, config: ServedConfig) -> Path:
    """The float32 graph that also outputs token vectors (corpus.encoding.token_encoder). Not `model.*.onnx`:
    ensure_exported removes those when the weights change."""
    return layout.onnx_model(config.weights_key).with_name("tokens.onnx")


def caller_graph_file(layout: StateLayout, config: ServedConfig) -> Path:
    """The graph a caller's rephrasings and hypothetical passage are embedded with
    (ServedConfig.caller_runtime): the token graph, or its int8 quantisation beside it."""
    path = token_graph_file(layout, config)
    return path.with_name(path.stem + INT8_SUFFIX) if config.caller_runtime == "onnx-int8" else path


class OnnxEncoder:
    """The Embedder's query interface (model_id, dimension, max_tokens, embed_query) plus a
    batched `embed_texts`, on ONNX Runtime."""

    def __init__(
        self, model_file: Path, folder: Path, model_id: str, query_prompt: str | None, threads: int = QUERY_THREADS
    ):
        import onnxruntime as ort

        self._load_tokenizer(folder, model_id, query_prompt)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # no busy-wait
        self.session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
        self.model_file = model_file
        self._inputs = [i.name for i in self.session.get_inputs()]
        self.dimension = int(self.embed_texts(["dimension probe"])[0].shape[0])
        self.encoded_texts = 0

    def _load_tokenizer(self, folder: Path, model_id: str, query_prompt: str | None) -> None:
        from tokenizers import Tokenizer

        settings = json.loads((folder / "sentence_bert_config.json").read_text())
        self.model_id = model_id
        self.query_prompt = query_prompt
        self.max_tokens = int(settings.get("max_seq_length", 512))
        # tokenizer.json carries its own truncation (128) and fixed padding: replace both with
        # what sentence-transformers applies (truncate at max_seq_length, pad to the longest).
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        padding = self.tokenizer.padding or {}
        self._pad = {
            "pad_id": padding.get("pad_id", 0),
            "pad_type_id": padding.get("pad_type_id", 0),
            "pad_token": padding.get("pad_token", "[PAD]"),
        }
        self.tokenizer.enable_truncation(max_length=self.max_tokens)
        self.tokenizer.no_padding()

    def _feeds(self, encodings) -> dict[str, np.ndarray]:
        """The graph's inputs for one padded batch of encodings."""
        return {
            name: np.array([getattr(e, _ENCODING_FIELD[name]) for e in encodings], dtype=np.int64)
            for name in self._inputs
        }

    def _run(self, encodings) -> np.ndarray:
        return np.asarray(self.session.run(None, self._feeds(encodings))[0], dtype=np.float32)

    def _run_batch(self, texts: list[str], encodings) -> np.ndarray:
        """The vectors of one padded batch of `texts` (a subclass may read more of the run)."""
        return self._run(encodings)

    def embed_query(self, text: str) -> np.ndarray:
        self.encoded_texts += 1
        return self._run([self.tokenizer.encode((self.query_prompt or "") + text)])[0]

    def embed_texts(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """One normalised row per text, in input order; each batch pads to its longest text."""
        rows: list[np.ndarray] = [np.empty(0, np.float32)] * len(texts)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))  # similar lengths together
        for start in range(0, len(order), batch_size):
            indices = order[start : start + batch_size]
            encodings = self.tokenizer.encode_batch([texts[i] for i in indices])
            width = max(len(e.ids) for e in encodings)
            for encoding in encodings:
                encoding.pad(width, **self._pad)
            for i, vector in zip(indices, self._run_batch([texts[i] for i in indices], encodings)):
                rows[i] = vector
        return np.stack(rows) if rows else np.empty((0, self.dimension), np.float32)


_cache: dict[tuple, OnnxEncoder] = {}
_lock = threading.Lock()


def load_onnx_encoder(
    layout: StateLayout, config: ServedConfig, folder: Path, query_prompt: str | None
) -> OnnxEncoder | None:
    """The ONNX encoder of `config` in `layout`, or None (with a warning) when it was not exported."""
    path = onnx_file(layout, config)
    if not path.exists():
        log.warning(
            "no ONNX export at %s (run `quant-rag ingest` to create it); embedding queries "
            "with transformers instead, which imports torch and starts slower",
            path,
        )
        return None
    key = (str(path), str(folder), config.embedding_model, query_prompt)
    with _lock:
        if key not in _cache:
            _cache[key] = OnnxEncoder(path, folder, config.embedding_model, query_prompt)
        return _cache[key]
