"""Mean pooling of a transformer's last hidden state: the one query-vector computation shared by
the full embedder's fast path (corpus.embedder) and the light query encoder (corpus.query_encoder).
torch is imported on first call only."""

from __future__ import annotations

import numpy as np


def mean_pooled_vector(model, tokenizer, text: str, max_tokens: int) -> np.ndarray:
    """Normalised mean of the last hidden state over the attended tokens of `text`."""
    import torch

    batch = tokenizer([text], truncation=True, max_length=max_tokens, return_tensors="pt")
    with torch.inference_mode():
        hidden = model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        vector = torch.nn.functional.normalize(pooled, dim=-1)[0]
    return vector.numpy().astype(np.float32)
