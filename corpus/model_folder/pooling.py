"""Pooling of a transformer's last hidden state into one vector: which kind a saved model uses
(read from its sentence-transformers files) and the torch computation shared by the ONNX export
(corpus.encoding.onnx_export), the bfloat16 encoder (corpus.encoding.bf16_encoder) and the fast query path of
mean-pooling models (corpus.encoding.embedder, corpus.encoding.query_encoder). torch is imported on first call only.

Mean pooling is the packaged MiniLM's (and MPNet's, E5's); the first token is BERT-style CLS
pooling (BGE); the last token is a decoder embedder's (Qwen3-Embedding): a causal model's last
position is the only one that has read the whole text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import numpy as np

Pooling = Literal["mean", "cls", "lasttoken"]
_MODULES = [
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
]
_FLAGS: dict[str, Pooling] = {
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_cls_token": "cls",
    "pooling_mode_lasttoken": "lasttoken",
}


def pooling_of(folder: Path) -> Pooling | None:
    """The pooling of a model saved as Transformer → Pooling → Normalize with exactly one of mean,
    first-token or last-token pooling; None for any other layout (it is then run by
    sentence-transformers itself, whatever it holds)."""
    try:
        modules = [m["type"] for m in json.loads((Path(folder) / "modules.json").read_text())]
        settings = json.loads((Path(folder) / "1_Pooling" / "config.json").read_text())
    except (OSError, ValueError, KeyError, TypeError):
        return None
    chosen = [k for k, v in settings.items() if k.startswith("pooling_mode_") and v]
    if modules != _MODULES or len(chosen) != 1 or chosen[0] not in _FLAGS:
        return None
    return _FLAGS[chosen[0]]


def pool(hidden, attention_mask, pooling: Pooling):
    """L2-normalised (batch, dim) vectors from the last hidden state under `pooling`; padding on
    either side is ignored (the last token is the last attended position)."""
    import torch

    if pooling == "cls":
        pooled = hidden[:, 0]
    elif pooling == "lasttoken":
        positions = torch.arange(attention_mask.shape[1], device=attention_mask.device)
        last = (attention_mask * positions).argmax(dim=1)
        pooled = hidden[torch.arange(hidden.shape[0], device=hidden.device), last]
    else:
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(pooled, dim=-1)


def mean_pooled_vector(model, tokenizer, text: str, max_tokens: int) -> np.ndarray:
    """Normalised mean of the last hidden state over the attended tokens of `text`."""
    import torch

    batch = tokenizer([text], truncation=True, max_length=max_tokens, return_tensors="pt")
    with torch.inference_mode():
        hidden = model(**batch).last_hidden_state
        vector = pool(hidden, batch["attention_mask"], "mean")[0]
    return vector.numpy().astype(np.float32)
