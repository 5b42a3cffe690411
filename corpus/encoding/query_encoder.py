"""Query-side encoding without sentence-transformers: what the server needs to answer fast.

For a model saved as Transformer → mean Pooling → Normalize (all-MiniLM-L6-v2), a query vector is
the attention-masked mean of the last hidden state, L2-normalised. Computing it with `transformers`
alone skips importing sentence-transformers (seconds of a cold start) and its batching machinery;
tests check the vectors equal `SentenceTransformer.encode`'s. Other architectures use the Embedder.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np

from corpus.config import ServedConfig
from corpus.model_folder.pooling import mean_pooled_vector

_PLAIN = [
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
]
_cache: dict[tuple, QueryEncoder] = {}
_lock = threading.Lock()


def is_plain_mean_pooling(folder: Path) -> bool:
    """True when the saved model is exactly Transformer → mean Pooling → Normalize."""
    try:
        modules = [m["type"] for m in json.loads((folder / "modules.json").read_text())]
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
    except (OSError, ValueError, KeyError):
        return False
    only_mean = pooling.get("pooling_mode_mean_tokens") and not any(
        v for k, v in pooling.items() if k.startswith("pooling_mode_") and k != "pooling_mode_mean_tokens"
    )
    return modules == _PLAIN and bool(only_mean)


class QueryEncoder:
    """The query half of the Embedder's interface (model_id, dimension, max_tokens, embed_query)."""

    def __init__(self, folder: Path, model_id: str, query_prompt: str | None):
        from transformers import AutoModel, AutoTokenizer

        settings = json.loads((folder / "sentence_bert_config.json").read_text())
        self.model_id = model_id
        self.query_prompt = query_prompt
        self.max_tokens = int(settings.get("max_seq_length", 512))
        self.tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        self.model = AutoModel.from_pretrained(str(folder), local_files_only=True).eval()
        self.dimension = int(self.model.config.hidden_size)
        self.encoded_texts = 0

    def embed_query(self, text: str) -> np.ndarray:
        self.encoded_texts += 1
        return mean_pooled_vector(self.model, self.tokenizer, (self.query_prompt or "") + text, self.max_tokens)


def load_query_encoder(config: ServedConfig, layout=None):
    """The ONNX encoder exported into `layout` when there is one (no torch) -- with late interaction
    the token graph's (corpus.encoding.token_encoder), which also gives a question's token vectors --, else a
    QueryEncoder when the model allows it, else the full Embedder; cached per process."""
    from corpus.encoding.embedder import QUERY_TEMPLATE, load_embedder, model_folder

    folder = model_folder(config)
    if not is_plain_mean_pooling(folder):
        return load_embedder(config)
    prompt = QUERY_TEMPLATE.format(instruction=config.query_instruction) if config.query_instruction else None
    if layout is not None and config.query_runtime == "onnx" and config.late_interaction:
        from corpus.encoding.token_encoder import load_token_encoder

        # the token graph's pooled output is the plain graph's: one session serves both halves
        token_encoder = load_token_encoder(layout, config, folder, prompt)
        if token_encoder is not None:
            return token_encoder
    if layout is not None and config.query_runtime != "torch":
        from corpus.encoding.onnx_encoder import load_onnx_encoder

        encoder = load_onnx_encoder(layout, config, folder, prompt)
        if encoder is not None:
            return encoder
    key = (str(folder), config.embedding_model, prompt)
    with _lock:
        if key not in _cache:
            _cache[key] = QueryEncoder(folder, config.embedding_model, prompt)
        return _cache[key]
