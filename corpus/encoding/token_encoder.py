"""The two-output ONNX encoder: one run gives a text's pooled vector and its token vectors.

Ingestion reads passage pieces' token vectors from it (corpus.indexes.token_index); the server embeds a
question with it once for both the vector search and the late-interaction scoring. Its pooled
output is the same computation as the plain export's (corpus.encoding.onnx_export), so the vectors equal
the stored ones (tested). Like OnnxEncoder it imports neither torch nor transformers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from corpus.config import ServedConfig
from corpus.encoding.onnx_encoder import QUERY_THREADS, OnnxEncoder, token_graph_file
from corpus.state.layout import StateLayout


class TokenEncoder(OnnxEncoder):
    """OnnxEncoder over the token graph: `embed_query`/`embed_texts` as the base class, plus
    `query` (vector and question tokens) and `passage_tokens`."""

    on_tokens: Callable[[list[str], list[np.ndarray]], None] | None = None

    def _outputs(self, encodings) -> tuple[np.ndarray, np.ndarray]:
        pooled, tokens = self.session.run(None, self._feeds(encodings))
        return np.asarray(pooled, dtype=np.float32), np.asarray(tokens, dtype=np.float32)

    def query(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """(pooled vector, token vectors without [CLS] and [SEP]) of a question: the special
        tokens carry no word of it, and every question token weighs alike in MaxSim."""
        self.encoded_texts += 1
        pooled, tokens = self._outputs([self.tokenizer.encode((self.query_prompt or "") + text)])
        return pooled[0], tokens[0][1:-1]

    def queries(self, texts: list[str]) -> list[tuple[np.ndarray, np.ndarray]]:
        """`query` of every text (a question and the caller's rephrasings and hypothetical
        passage), texts of similar length run together: one run of the graph for the question and
        its rephrasings, one more for a passage ten times longer (padding the short ones to its
        length cost twice two runs). Each text's token vectors stop at its own length, so padding
        never reaches MaxSim; the pooled vectors equal `query`'s (the graph masks padding out of
        the mean; tested)."""
        encodings = self.tokenizer.encode_batch([(self.query_prompt or "") + t for t in texts])
        found: list[tuple[np.ndarray, np.ndarray]] = [None] * len(texts)  # type: ignore[list-item]
        for group in padding_groups([len(e.ids) for e in encodings]):
            batch = [encodings[i] for i in group]
            width = max(len(e.ids) for e in batch)
            lengths = [len(e.ids) for e in batch]
            for encoding in batch:
                encoding.pad(width, **self._pad)
            pooled, tokens = self._outputs(batch)
            for row, (i, length) in enumerate(zip(group, lengths)):
                found[i] = (pooled[row], tokens[row][1 : length - 1])
        self.encoded_texts += len(texts)
        return found

    def _run_batch(self, texts: list[str], encodings) -> np.ndarray:
        """Pooled vectors of the batch; its token vectors ([CLS] and [SEP] included, padding
        dropped) go to `on_tokens(texts, rows)` when set (ingestion caches them as it embeds)."""
        pooled, tokens = self._outputs(encodings)
        if self.on_tokens is not None:
            lengths = [sum(e.attention_mask) for e in encodings]
            self.on_tokens(texts, [matrix[:length] for matrix, length in zip(tokens, lengths)])
        return pooled

    def passage_tokens(self, texts: list[str], batch_size: int = 32) -> list[np.ndarray]:
        """Every text's token vectors, in input order (embedded in batches, as `embed_texts`)."""
        found: dict[str, np.ndarray] = {}
        previous, self.on_tokens = self.on_tokens, lambda batch, rows: found.update(zip(batch, rows))
        try:
            self.embed_texts(texts, batch_size=batch_size)
        finally:
            self.on_tokens = previous
        return [found[text] for text in texts]


# A batch grows while its padded cells stay within this factor of its real tokens, or while it is
# short (a run's fixed cost outweighs padding a few dozen tokens).
PADDING_SLACK, SHORT_TOKENS = 1.5, 64


def padding_groups(lengths: list[int]) -> list[list[int]]:
    """Indices of `lengths` in runs of similar length (shortest first): a run grows while its
    texts are short or padding every member to its longest keeps the cells within PADDING_SLACK x
    the real tokens."""
    groups: list[list[int]] = []
    total = 0
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        if groups and (
            lengths[i] <= SHORT_TOKENS or (len(groups[-1]) + 1) * lengths[i] <= PADDING_SLACK * (total + lengths[i])
        ):
            groups[-1].append(i)
            total += lengths[i]
        else:
            groups.append([i])
            total = lengths[i]
    return groups


_cache: dict[tuple, TokenEncoder] = {}
_lock = threading.Lock()


def load_token_encoder(
    layout: StateLayout,
    config: ServedConfig,
    folder: Path,
    query_prompt: str | None,
    threads: int = QUERY_THREADS,
    graph: Path | None = None,
) -> TokenEncoder | None:
    """The token encoder of `config` in `layout` (one per process and graph), or None when the
    token graph was not exported. `graph`: another export of it (the caller's inputs' int8 graph,
    corpus.encoding.onnx_encoder.caller_graph_file)."""
    path = graph or token_graph_file(layout, config)
    if not path.exists():
        return None
    key = (str(path), str(folder), config.embedding_model, query_prompt, threads)
    with _lock:
        if key not in _cache:
            _cache[key] = TokenEncoder(path, folder, config.embedding_model, query_prompt, threads=threads)
        return _cache[key]
