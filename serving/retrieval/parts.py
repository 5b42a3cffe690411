"""The parts a search reads, opened on first use (never at import), each under its own lock, so
a background warm-up and the first request can race safely: the reader, the query embedder, the
vector store, the BM25 index, the entity graph, the token index with its encoder, the caller's
encoder, the dense scan's int8 prescore and the cross-encoder. A caller that already holds a
part passes it to the constructor; `Parts.variant` opens another ranking configuration over the
same state, sharing every part that configuration opens the same way.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np

from corpus.config import ServedConfig
from corpus.encoding.onnx_encoder import QUERY_THREADS
from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout
from corpus.vectors.vector_store_base import VectorStore
from serving.abstention.terms import term_statistics
from serving.answer.errors import IncoherentState, Unavailable
from serving.coherence import INGEST_COMMAND
from serving.retrieval.input_encoding import load_caller_encoder

if TYPE_CHECKING:  # opened lazily: the server must start without duckdb, bm25s or a model
    from corpus.encoding.token_encoder import TokenEncoder
    from corpus.graph.graph_store import GraphStore
    from corpus.indexes.bm25_store import BM25Index
    from corpus.indexes.token_index import TokenIndex
    from serving.retrieval.dense_prefilter import DensePrefilter

log = logging.getLogger(__name__)
T = TypeVar("T")


class QueryEmbedder(Protocol):
    """What a search needs of a model: corpus.encoding.query_encoder.QueryEncoder or
    corpus.encoding.embedder.Embedder."""

    dimension: int

    def embed_query(self, text: str) -> np.ndarray: ...


class _Part:
    """One lazily opened part and its lock; parts and their variants hold the same one for a part
    they share, so it is opened once, by whichever uses it first."""

    __slots__ = ("value", "lock")

    def __init__(self, value: Any = None) -> None:
        self.value, self.lock = value, threading.Lock()


# Parts a bare search does without: the caller's graph (rephrasings, a hypothetical passage) and the
# dense scan's int8 prescore (the full scan gives the same answer until it is built).
EXTRA_PARTS = ("caller_encoder", "dense_prefilter")
# The parts a caller may hand to the constructor, already open.
GIVEN = ("reader", "embedder", "vectors", "bm25", "graph")
# The settings each part is opened with beyond the state: a variant shares a part when they are equal
# (the reader and the graph are the state's alone).
PART_SETTINGS = {
    "embedder": ("embedding_model", "embedding_model_path", "embedding_revision", "query_instruction", "query_runtime"),
    "vectors": (
        "embedding_model",
        "embedding_model_path",
        "embedding_revision",
        "passage_runtime",
        "vector_backend",
        "qdrant_url",
        "vector_index",
    ),
    "bm25": ("bm25_stopwords", "bm25_k1", "bm25_b"),
}
_SLOTS = {"tokens": "_tokens", "caller_encoder": "_callers", "dense_prefilter": "_prefilter"}


class Parts:
    """The state's stores and encoders for one served configuration; opened lazily."""

    def __init__(self, layout: StateLayout, config: ServedConfig, signature: str | None = None, **given: Any) -> None:
        """`signature`: the corpus signature the state was checked coherent at (BM25 files are
        named by it); None when unknown, and then the BM25 index cannot be opened. `given` (any of
        GIVEN) are used as they are (a BM25 index built in memory, an embedder that remembers its
        queries); the others open on first use."""
        unknown = set(given) - set(GIVEN)
        if unknown:
            raise TypeError(f"unknown engine parts {sorted(unknown)}; expected some of {GIVEN}")
        self.layout, self.config, self.signature = layout, config, signature
        self._reader, self._embedder = _Part(given.get("reader")), _Part(given.get("embedder"))
        self._vectors, self._bm25, self._graph = (_Part(given.get(n)) for n in ("vectors", "bm25", "graph"))
        self._reranker = _Part()  # sentence_transformers.CrossEncoder, when configured
        self._tokens = _Part()  # (TokenIndex, TokenEncoder), or () when not built
        self._callers = _Part()  # the TokenEncoder of a caller's rephrasings and hypothetical passage
        self._prefilter = _Part()  # (DensePrefilter,) once built, () where there is none

    def variant(self, config: ServedConfig, **given: Any) -> Parts:
        """Parts serving `config` over this state and signature, sharing every part `config` opens
        the same way (PART_SETTINGS): the reader and the entity graph always, the query embedder,
        the vector store and the BM25 index when their settings are unchanged. `given` replace any
        of them (an evaluation arm passes the BM25 index of its own settings)."""
        parts = Parts(self.layout, config, self.signature, **given)
        for name in GIVEN:
            settings = PART_SETTINGS.get(name, ())
            if name not in given and all(getattr(config, f) == getattr(self.config, f) for f in settings):
                setattr(parts, f"_{name}", getattr(self, f"_{name}"))
        return parts

    def _lazy(self, slot: str, factory: Callable[[], T]) -> T:
        part = getattr(self, slot)
        with part.lock:
            if part.value is None:
                part.value = factory()
            return part.value

    def is_open(self, name: str) -> bool:
        """Whether the part `name` (reader, embedder, vectors, bm25...) is already loaded."""
        return getattr(self, _SLOTS.get(name, f"_{name}")).value is not None

    def built(self, name: str) -> Any:
        """The part `name` if it is already open, else None: never opens nor waits for it."""
        return getattr(self, _SLOTS.get(name, f"_{name}")).value

    @property
    def reader(self) -> CorpusReader:
        return self._lazy("_reader", lambda: CorpusReader.open(self.layout))

    @property
    def embedder(self) -> QueryEmbedder:
        def load() -> QueryEmbedder:
            from corpus.encoding.embedder import EmbedderUnavailableError
            from corpus.encoding.query_encoder import load_query_encoder

            try:  # the server only embeds queries: ONNX (no torch) when exported, else transformers
                return load_query_encoder(self.config, self.layout)
            except EmbedderUnavailableError as exc:
                raise Unavailable(str(exc)) from exc

        return self._lazy("_embedder", load)

    @property
    def vectors(self) -> VectorStore:
        def load() -> VectorStore:
            from corpus.vectors.vector_store import VectorStoreError, open_vector_store

            try:  # embedded stores load into this process's memory: no lock held, any number of readers
                return open_vector_store(self.layout, self.config, self.embedder.dimension, read_only=True)
            except VectorStoreError as exc:  # absent or unreadable: say which
                raise Unavailable(str(exc), rebuild=[INGEST_COMMAND]) from exc

        return self._lazy("_vectors", load)

    @property
    def bm25(self) -> BM25Index:
        def load() -> BM25Index:
            from corpus.indexes.bm25_store import BM25Index, StaleIndexError

            if self.signature is None:  # BM25 files are named by the signature the state was checked at
                raise IncoherentState("no corpus signature recorded for this state", rebuild=[INGEST_COMMAND])
            try:
                return BM25Index.load(
                    self.layout.bm25, self.signature, self.config.analyzer, k1=self.config.bm25_k1, b=self.config.bm25_b
                )
            except StaleIndexError as exc:
                raise IncoherentState(str(exc), rebuild=[INGEST_COMMAND]) from exc

        return self._lazy("_bm25", load)

    @property
    def graph(self) -> GraphStore:
        def load() -> GraphStore:
            from corpus.graph.graph_store import GraphStore

            if not self.layout.graph.exists():
                raise Unavailable("the entity graph has not been built", rebuild=[INGEST_COMMAND])
            return GraphStore.open(self.layout.graph)

        return self._lazy("_graph", load)

    @property
    def tokens(self) -> tuple[TokenIndex, TokenEncoder] | tuple[()]:
        """(token index, token encoder) of the served signature, or () when either is missing
        (hybrid search then keeps the fused order, and says so in its answer)."""

        def load() -> tuple:
            from corpus.encoding.embedder import model_folder
            from corpus.encoding.token_encoder import TokenEncoder, load_token_encoder
            from corpus.indexes.token_index import TokenIndex

            index = TokenIndex.for_state(self.layout, self.config.weights_key, self.signature)
            encoder = None
            if index is not None:  # the query encoder itself, when it is the token graph's
                embedder = self.embedder
                encoder = (
                    embedder
                    if isinstance(embedder, TokenEncoder)
                    else load_token_encoder(
                        self.layout, self.config, model_folder(self.config), getattr(embedder, "query_prompt", None)
                    )
                )
            if index is None or encoder is None:
                log.warning(
                    "no token index for this state (run `%s`): hybrid search keeps the fused order", INGEST_COMMAND
                )
                return ()
            # paid by the warm-up, on the query encoder's threads: a cooperative search's inputs make
            # a product several times the question's (docs/measurements.md, "Cooperative search in int8")
            index.open_product(QUERY_THREADS)
            return index, encoder

        return self._lazy("_tokens", load)

    @property
    def dense_prefilter(self) -> tuple[DensePrefilter] | tuple[()]:
        """(the int8 prescore of the unfiltered dense scan,), or () where it cannot serve: no
        in-memory vector store, no integer product beside the token index, or a BLAS whose
        gathered rows do not score as the scan's (serving.retrieval.dense_prefilter). Built by the
        warm-up after the vectors; until then the full scan answers, with the same results."""

        def load() -> tuple:
            from corpus.indexes.token_index import index_path
            from corpus.indexes.token_product import GRAPH_FILE, IntegerProduct
            from corpus.vectors.vector_store_memory import MemoryVectorStore
            from serving.retrieval.dense_prefilter import DensePrefilter

            store = self.vectors
            if not isinstance(store, MemoryVectorStore) or self.signature is None:
                return ()
            graph = index_path(self.layout, self.config.weights_key, self.signature) / GRAPH_FILE
            if not graph.exists():
                return ()
            built = DensePrefilter.build(store, IntegerProduct(graph, QUERY_THREADS))
            return (built,) if built is not None else ()

        return self._lazy("_prefilter", load)

    @property
    def caller_encoder(self) -> TokenEncoder | None:
        """The encoder of a caller's rephrasings and hypothetical passage
        (serving.retrieval.input_encoding), or None without a token index."""
        tokens = self.tokens
        if not tokens:
            return None
        return self._lazy("_callers", lambda: load_caller_encoder(self.layout, self.config, tokens[1]))

    @property
    def reranker_name(self) -> str:
        path = self.config.reranker_model_path
        return Path(path).name if path and Path(path).exists() else "none"

    @property
    def reranker(self) -> Any:
        """The configured cross-encoder (sentence_transformers.CrossEncoder)."""

        def load() -> Any:
            from sentence_transformers import CrossEncoder

            return CrossEncoder(self.config.reranker_model_path, device="cpu")

        return self._lazy("_reranker", load)

    def close(self) -> None:
        """Release the vector store (a Qdrant server connection; in-memory readers hold no file), for
        every variant that shares it."""
        with self._vectors.lock:
            if self._vectors.value is not None:
                self._vectors.value.close()
                self._vectors.value = None
        with self._prefilter.lock:
            self._prefilter.value = None

    def warm_up(self, extras: bool = True) -> None:
        """Open everything a search in any mode needs: the reader, the model and vector store, BM25
        (its files are named by the signature, so only when that is known) and, when configured,
        the token index; then, with `extras`, what only makes searches cheaper or serves a
        caller's rephrasings (EXTRA_PARTS). Each part on its own, so one that fails leaves the
        others loaded."""
        parts = ["reader"]
        if self.signature is not None:  # with the abstention's term statistics, which read it
            parts += ["bm25", "term_statistics"]
        parts.append("vectors")  # the vector store loads the model (it asks its dimension)
        if self.config.late_interaction:
            parts.append("tokens")
        for part in parts + (list(EXTRA_PARTS) if extras else []):
            self.open_part(part)

    def open_part(self, part: str) -> None:
        """Open one part (a property of these parts, or the BM25 term statistics), logging a
        failure instead of raising it: best effort, the request path reports errors properly."""
        try:
            if part == "term_statistics":
                term_statistics(self.bm25)
            else:
                getattr(self, part)
        except Exception:
            log.warning("warm-up could not open %s", part, exc_info=True)
