"""The retrieval engine: scope filters, dense / BM25 / hybrid retrieval, fusion and selection.

Stores and the embedding model are opened on first use (never at import), each under its own
lock, so a background warm-up and the first request can race safely. A caller that already holds
a part passes it to the constructor; `Engine.variant` serves another ranking configuration over
the same state, sharing the parts that configuration leaves unchanged.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, get_args

import numpy as np

from corpus.config import ServedConfig
from corpus.encoding.onnx_encoder import QUERY_THREADS
from corpus.indexes.passage_store import LARGE_STATE_PASSAGES
from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout
from corpus.text.names import fold_name
from corpus.vectors.vector_store_base import VectorStore
from serving.abstention.model import DENSE_K, term_statistics
from serving.abstention.coverage import COVERAGE_PASSAGES
from serving.coherence import INGEST_COMMAND
from serving.retrieval.cooperative import Contribution, Ordering, QueryInput, contributions
from serving.answer.errors import IncoherentState, InvalidArgument, Unavailable
from serving.retrieval.furniture import drop_furniture
from serving.retrieval.input_encoding import encode_inputs, hypothetical_vector, load_caller_encoder
from serving.retrieval.rescan import rescan
from serving.retrieval.scope import Scope
from serving.retrieval.selection import (
    Candidate,
    convex_fusion,
    is_headings_only,
    reciprocal_rank_fusion,
    select,
    with_document_best,
)

if TYPE_CHECKING:  # opened lazily: the server must start without duckdb, bm25s or a model
    from corpus.encoding.token_encoder import TokenEncoder
    from corpus.graph.graph_store import GraphStore
    from corpus.indexes.bm25_store import BM25Index
    from corpus.indexes.token_index import TokenIndex
    from serving.retrieval.dense_prefilter import DensePrefilter

log = logging.getLogger(__name__)
T = TypeVar("T")

Mode = Literal["dense", "bm25", "hybrid"]
MODES: tuple[str, ...] = get_args(Mode)


class QueryEmbedder(Protocol):
    """What the engine needs of a model: corpus.encoding.query_encoder.QueryEncoder or
    corpus.encoding.embedder.Embedder."""

    dimension: int

    def embed_query(self, text: str) -> np.ndarray: ...


@dataclass
class Retrieval:
    hits: list[Candidate]
    pool: int  # candidates retrieved before selection
    documents_in_scope: int | None
    reranked: bool
    evidence: float | None = None  # best dense similarity in scope
    late_interaction: bool = False  # the pool was ordered by MaxSim over token vectors
    dense_scores: tuple[float, ...] = ()  # the first dense similarities, best first (abstention)
    hypothetical_scores: tuple[float, ...] = ()  # the same for the caller's hypothetical passage
    inputs: list[Contribution] = field(default_factory=list)  # the question first, then the caller's others
    # the question's token vectors, when late interaction ran (abstention's semantic coverage)
    question_tokens: np.ndarray | None = field(default=None, compare=False, repr=False)
    # the question's own first passages when other inputs were fused (its order over the pool)
    question_top: tuple[str, ...] = ()
    # per scored passage, the question's best cosine per token (MaxSim's rows; abstention's coverage)
    question_rows: dict[str, np.ndarray] = field(default_factory=dict, compare=False, repr=False)


class _Part:
    """One lazily opened part and its lock; an engine and its variants hold the same one for a part
    they share, so it is opened once, by whichever uses it first."""

    __slots__ = ("value", "lock")

    def __init__(self, value: Any = None) -> None:
        self.value, self.lock = value, threading.Lock()


# Parts a bare search does without: the caller's graph (rephrasings, a hypothetical passage) and the
# dense scan's int8 prescore (the full scan gives the same answer until it is built).
EXTRA_PARTS = ("caller_encoder", "dense_prefilter")
# The parts a caller may hand to the constructor, already open.
PARTS = ("reader", "embedder", "vectors", "bm25", "graph")
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


class Engine:
    """Everything a tool needs to find passages; opened lazily."""

    def __init__(
        self,
        layout: StateLayout,
        config: ServedConfig,
        signature: str | None = None,
        *,
        reader: CorpusReader | None = None,
        embedder: QueryEmbedder | None = None,
        vectors: VectorStore | None = None,
        bm25: BM25Index | None = None,
        graph: GraphStore | None = None,
    ) -> None:
        """`signature`: the corpus signature the state was checked coherent at (BM25 files are
        named by it); None when unknown, and then the BM25 index cannot be opened. The parts
        passed are used as they are (a BM25 index built in memory, an embedder that remembers its
        queries); the others open on first use."""
        self.layout = layout
        self.config = config
        self.signature = signature
        self._reader = _Part(reader)
        self._embedder = _Part(embedder)
        self._vectors = _Part(vectors)
        self._bm25 = _Part(bm25)
        self._graph = _Part(graph)
        self._reranker = _Part()  # sentence_transformers.CrossEncoder, when configured
        self._tokens = _Part()  # (TokenIndex, TokenEncoder), or () when not built
        self._callers = _Part()  # the TokenEncoder of a caller's rephrasings and hypothetical passage
        self._prefilter = _Part()  # (DensePrefilter,) once built, () where there is none
        # Hybrid mode over a large corpus embeds the query and searches vectors here while BM25
        # scores in the caller's thread (ONNX Runtime and numpy release the GIL).
        self._dense_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="engine-dense")

    def variant(self, config: ServedConfig, **parts: Any) -> Engine:
        """An engine serving `config` over this engine's state and signature, sharing with this one
        every part `config` opens the same way (PART_SETTINGS): the reader and the entity graph
        always, the query embedder, the vector store and the BM25 index when their settings are
        unchanged. A shared part is opened once, by whichever engine uses it first. `parts` (see
        the constructor) replace any of them: an evaluation arm passes the BM25 index of its own
        settings, which the state's files do not hold."""
        unknown = set(parts) - set(PARTS)
        if unknown:
            raise TypeError(f"unknown engine parts {sorted(unknown)}; expected some of {PARTS}")
        engine = Engine(self.layout, config, self.signature, **parts)
        for name in PARTS:
            settings = PART_SETTINGS.get(name, ())
            if name not in parts and all(getattr(config, f) == getattr(self.config, f) for f in settings):
                setattr(engine, f"_{name}", getattr(self, f"_{name}"))
        return engine

    # -- lazily opened parts (one lock each, so a model load never blocks the reader) ---
    def _lazy(self, name: str, factory: Callable[[], T]) -> T:
        part = getattr(self, f"_{name}")
        with part.lock:
            if part.value is None:
                part.value = factory()
            return part.value

    def is_open(self, name: str) -> bool:
        """Whether the part `name` (reader, embedder, vectors, bm25...) is already loaded."""
        return getattr(self, f"_{name}").value is not None

    @property
    def reader(self) -> CorpusReader:
        return self._lazy("reader", lambda: CorpusReader.open(self.layout))

    @property
    def embedder(self) -> QueryEmbedder:
        def load() -> QueryEmbedder:
            from corpus.encoding.embedder import EmbedderUnavailableError
            from corpus.encoding.query_encoder import load_query_encoder

            try:  # the server only embeds queries: ONNX (no torch) when exported, else transformers
                return load_query_encoder(self.config, self.layout)
            except EmbedderUnavailableError as exc:
                raise Unavailable(str(exc)) from exc

        return self._lazy("embedder", load)

    @property
    def vectors(self) -> VectorStore:
        def load() -> VectorStore:
            from corpus.vectors.vector_store import VectorStoreError, open_vector_store

            try:  # embedded stores load into this process's memory: no lock held, any number of readers
                return open_vector_store(self.layout, self.config, self.embedder.dimension, read_only=True)
            except VectorStoreError as exc:  # absent or unreadable: say which
                raise Unavailable(str(exc), rebuild=[INGEST_COMMAND]) from exc

        return self._lazy("vectors", load)

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

        return self._lazy("bm25", load)

    @property
    def graph(self) -> GraphStore:
        def load() -> GraphStore:
            from corpus.graph.graph_store import GraphStore

            if not self.layout.graph.exists():
                raise Unavailable("the entity graph has not been built", rebuild=[INGEST_COMMAND])
            return GraphStore.open(self.layout.graph)

        return self._lazy("graph", load)

    @property
    def reranker_name(self) -> str:
        path = self.config.reranker_model_path
        return Path(path).name if path and Path(path).exists() else "none"

    def close(self) -> None:
        """Release the vector store (a Qdrant server connection; in-memory readers hold no file), for
        every variant that shares it."""
        part = self._vectors
        with part.lock:
            if part.value is not None:
                part.value.close()
                part.value = None
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
        """Open one part (a property of this engine, or the BM25 term statistics), logging a
        failure instead of raising it: best effort, the request path reports errors properly."""
        try:
            if part == "term_statistics":
                term_statistics(self.bm25)
            else:
                getattr(self, part)
        except Exception:
            log.warning("warm-up could not open %s", part, exc_info=True)

    # -- scope --------------------------------------------------------------------------
    def documents_in_scope(self, scope: Scope) -> set[str] | None:
        """Ids of documents passing the filters, or None when nothing filters.

        A year bound excludes undated documents; the author filter is an accent- and
        case-insensitive substring of any author.
        """
        if scope.unbounded:
            return None
        ids, years, authors = self._catalogue()
        keep = np.ones(len(ids), dtype=bool)
        if scope.year_min is not None:
            keep &= years >= scope.year_min  # NaN (undated) compares false
        if scope.year_max is not None:
            keep &= years <= scope.year_max
        needles = [fold_name(a) for a in scope.authors if a.strip()]
        allowed: set[str] = set()
        for row in np.flatnonzero(keep).tolist():
            document_id = ids[row]
            if scope.document_ids is not None and document_id not in scope.document_ids:
                continue
            if needles and not any(n in a for n in needles for a in authors[row]):
                continue
            allowed.add(document_id)
        return allowed

    def _catalogue(self) -> tuple[list[str], np.ndarray, list[list[str]]]:
        """Document ids, years (NaN when undated) and folded author names, built once: the reader
        never changes, and at 3,186 documents reading them per scoped search cost ~20 ms."""
        if not hasattr(self, "_scope_table"):
            entries = self.reader.documents
            self._scope_table = (
                list(entries),
                np.array([np.nan if e.year is None else e.year for e in entries.values()]),
                [[fold_name(a) for a in e.authors] for e in entries.values()],
            )
        return self._scope_table

    def newest_year(self) -> int | None:
        """Newest publication year of the served corpus (computed once: the reader never changes)."""
        if not hasattr(self, "_newest_year"):
            years = [e.year for e in self.reader.documents.values() if e.year is not None]
            self._newest_year = max(years) if years else None
        return self._newest_year

    # -- retrieval ----------------------------------------------------------------------
    def dense(
        self,
        text: str,
        pool: int,
        allowed: set[str] | None,
        scope: Scope | None = None,
        vector: np.ndarray | None = None,
    ) -> list[Candidate]:
        """`allowed`: the documents in `scope`. A scope of years only is passed to the vector store
        as its year range instead (every point carries its document's publication year, the
        reader's `year`): the same points, but a range condition where hundreds of ids in a
        match list made a search at 100k passages 3x slower (25 vs 8 ms). `vector`: the question's,
        when already embedded (late interaction embeds it with its tokens)."""
        if vector is None:
            vector = self.embedder.embed_query(text)
        prefilter = self._prefilter.value  # used once built, never waited for
        if allowed is None and prefilter:
            found = prefilter[0].search(vector, pool)
        elif allowed is not None and scope is not None and not scope.authors and scope.document_ids is None:
            found = self.vectors.search(vector, pool, year_min=scope.year_min, year_max=scope.year_max)
        else:
            ids = sorted(allowed) if allowed is not None else None
            found = self.vectors.search(vector, pool, document_ids=ids)
        return [Candidate(cid, float(score)) for cid, score in found]

    def lexical(self, text: str, pool: int, allowed: set[str] | None) -> list[Candidate]:
        return [Candidate(cid, float(score)) for cid, score in self.bm25.search(text, pool, document_ids=allowed)]

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
                encoder = (
                    self.embedder
                    if isinstance(self.embedder, TokenEncoder)
                    else load_token_encoder(
                        self.layout,
                        self.config,
                        model_folder(self.config),
                        getattr(self.embedder, "query_prompt", None),
                    )
                )
            if index is None or encoder is None:
                log.warning(
                    "no token index for this state (run `%s`): hybrid search keeps the fused order", INGEST_COMMAND
                )
                return ()
            # ≈ 20 ms, paid by the warm-up; the query encoder's threads: a cooperative search's
            # four inputs make a product ~4x the question's, 15.6 -> 9.1 ms with a second thread
            # (docs/measurements.md, "Cooperative search in int8")
            index.open_product(QUERY_THREADS)
            return index, encoder

        return self._lazy("tokens", load)

    @property
    def dense_prefilter(self) -> tuple[DensePrefilter] | tuple[()]:
        """(the int8 prescore of the unfiltered dense scan,), or () where it cannot serve: no
        in-memory vector store, no integer product beside the token index, or a BLAS whose
        gathered rows do not score as the scan's (serving.retrieval.dense_prefilter). Built by the warm-up
        after the vectors (its own session of the product graph: it waits for nothing else);
        until then the full scan answers, with the same results."""

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

        return self._lazy("prefilter", load)

    @property
    def caller_encoder(self) -> TokenEncoder | None:
        """The encoder of a caller's rephrasings and hypothetical passage (serving.retrieval.input_encoding),
        or None without a token index."""
        tokens = self.tokens
        if not tokens:
            return None
        return self._lazy("callers", lambda: load_caller_encoder(self.layout, self.config, tokens[1]))

    def retrieve(
        self,
        text: str,
        mode: Mode,
        scope: Scope,
        *,
        limit: int,
        per_document: int | None = None,
        pool: int | None = None,
        others: Sequence[QueryInput] = (),
    ) -> Retrieval:
        """Ranked pool for `text` within `scope`, then selection down to `limit` passages.
        `others`: the caller's rephrasings and hypothetical passage, fused with the question
        (serving.retrieval.cooperative), each searched in the same scope."""
        if mode not in MODES:
            raise InvalidArgument(f"unknown mode {mode!r}; expected one of {MODES}", fields=["mode"])
        inputs = [QueryInput("question", text), *others]
        allowed = self.documents_in_scope(scope)
        size = max(pool or self.config.candidate_pool, limit)
        if allowed is not None and not allowed:
            return Retrieval([], 0, 0, False, inputs=contributions(inputs, [], [], self.config.rrf_k, limit))
        reranked, late, question_tokens = False, False, None
        question_rows: dict[str, np.ndarray] = {}
        denses: list[list[Candidate]] = []
        rankings: list[list[Candidate]] = []
        if mode == "hybrid":
            ranked, denses, late, rankings, question_tokens, question_rows = self._hybrid(inputs, size, allowed, scope)
            if self.reranker_name != "none":
                ranked, reranked = self.rerank(text, ranked), True
        else:
            rankings = [
                self.dense(
                    i.text, size, allowed, scope, self.hypothetical_vector(i.text) if i.kind == "hypothetical" else None
                )
                if mode == "dense"
                else self.lexical(i.text, size, allowed)
                for i in inputs
            ]
            denses = rankings if mode == "dense" else []
            ranked = (
                rankings[0]
                if len(inputs) == 1
                else reciprocal_rank_fusion(rankings, self.config.rrf_k, [i.weight for i in inputs])
            )
        reader = self.reader
        hits = select(
            drop_furniture(ranked, reader.passages, text),
            reader.passages,
            reader.near_duplicates,
            limit=limit,
            per_document=per_document or self.config.per_document,
            min_chars=self.config.min_passage_chars,
            fill=self.config.fill_limit,
        )
        top = [tuple(c.score for c in ranking[:DENSE_K]) for ranking in denses]
        hypothetical = [t for i, t in zip(inputs, top) if i.kind == "hypothetical"]
        return Retrieval(
            hits,
            len(ranked),
            None if allowed is None else len(allowed),
            reranked,
            top[0][0] if top and top[0] else None,
            late,
            top[0] if top else (),
            hypothetical[0] if hypothetical else (),
            contributions(inputs, rankings, hits, self.config.rrf_k, limit),
            question_tokens,
            tuple(c.chunk_id for c in rankings[0][:COVERAGE_PASSAGES]) if len(inputs) > 1 and rankings else (),
            question_rows,
        )

    def _first_stage(
        self, text: str, vector: np.ndarray | None, size: int, allowed: set[str] | None, scope: Scope
    ) -> tuple[list[Candidate], list[Candidate]]:
        """(dense and BM25 fused, the dense ranking) for one input."""
        if self.is_open("bm25") and self.bm25.doc_count >= LARGE_STATE_PASSAGES:
            pending = self._dense_pool.submit(self.dense, text, size, allowed, scope, vector)
            lexical = self.lexical(text, size, allowed)
            dense = pending.result()  # its exception, if any, is raised here as if inline
        else:
            dense, lexical = self.dense(text, size, allowed, scope, vector), self.lexical(text, size, allowed)
        rankings, weights = [dense, lexical], [self.config.dense_weight, self.config.bm25_weight]
        fused = (
            convex_fusion(rankings, weights)
            if self.config.fusion == "convex"
            else reciprocal_rank_fusion(rankings, self.config.rrf_k, weights)
        )
        return fused, dense

    def _hybrid(
        self, inputs: list[QueryInput], size: int, allowed: set[str] | None, scope: Scope
    ) -> tuple[
        list[Candidate], list[list[Candidate]], bool, list[list[Candidate]], np.ndarray | None, dict[str, np.ndarray]
    ]:
        """(pool, each input's dense ranking, whether MaxSim ordered the pool, each input's own
        order, the question's token vectors and its MaxSim rows): every input's dense and BM25 fused, the inputs
        fused by weight and cut to `size`, reordered by late interaction when its index is there
        (serving.retrieval.cooperative), the second stage (serving.retrieval.rescan), then the opt-in document rule.
        Inputs are embedded with their tokens when late interaction runs (`_encode`)."""
        tokens = self.tokens if self.config.late_interaction else ()
        encoded = (
            encode_inputs(self, inputs)
            if tokens
            else [(self.hypothetical_vector(i.text) if i.kind == "hypothetical" else None, None) for i in inputs]
        )
        stages = [self._first_stage(i.text, vector, size, allowed, scope) for i, (vector, _) in zip(inputs, encoded)]
        ordering = Ordering(
            inputs, [fused for fused, _ in stages], tokens[0] if tokens else None, [t for _, t in encoded], self.config
        )
        ranked = ordering.order(ordering.pool(size))
        passages = self.reader.passages
        if self.config.rescan_documents:
            vector = encoded[0][0] if encoded[0][0] is not None else self.embedder.embed_query(inputs[0].text)
            ranked = rescan(
                ranked,
                passages,
                lambda d: self._rank_document(d, inputs[0].text, vector, ordering),
                self.config.rescan_documents,
                self.config.rescan_per_document,
            )
        if self.config.document_best_weight:
            ranked = with_document_best(ranked, passages, self.config.document_best_weight)
        return (
            ranked,
            [dense for _, dense in stages],
            ordering.late,
            ordering.rankings,
            encoded[0][1],
            ordering.question_rows,
        )

    def hypothetical_vector(self, text: str) -> np.ndarray | None:
        """The vector a caller's hypothetical passage is searched with (serving.retrieval.input_encoding)."""
        return hypothetical_vector(self, text)

    def _rank_document(self, document_id: str, text: str, vector: np.ndarray, ordering: Ordering) -> list[str]:
        """The document's servable passages ranked by the full ranker restricted to it: the
        question's dense and BM25 rankings and the inputs' weighted MaxSim, fused by reciprocal rank."""
        ids = [
            p.chunk_id
            for p in self.reader.by_document.get(document_id, [])
            if not is_headings_only(p) and p.role == "body"
        ]
        if not ids:
            return []
        allowed = {document_id}
        rankings = [self.dense(text, len(ids), allowed, None, vector), self.lexical(text, len(ids), allowed)]
        if ordering.late:
            ordering.score(ids)
            rankings.append(
                [
                    Candidate(c, 0.0)
                    for c in sorted((c for c in ids if c in ordering.scores[0]), key=lambda c: -ordering.strength(c))
                ]
            )
        keep = set(ids)
        return [c.chunk_id for c in reciprocal_rank_fusion(rankings, self.config.rrf_k) if c.chunk_id in keep]

    def rerank(self, text: str, ranked: list[Candidate]) -> list[Candidate]:
        """Cross-encoder rescoring of the fused pool's head (only when a local model is configured);
        serving.retrieval.reranking says which candidates are scored and how the scores reorder the pool."""
        from serving.retrieval.reranking import blend, passage_text, rerank_head

        def load() -> Any:
            from sentence_transformers import CrossEncoder

            return CrossEncoder(self.config.reranker_model_path, device="cpu")

        model = self._lazy("reranker", load)
        reader = self.reader
        known = [c for c in ranked if c.chunk_id in reader.passages]
        head = [reader.passages[c.chunk_id] for c in rerank_head(known, self.config.reranker_depth)]
        pairs = [(text, passage_text(reader.title(p.document_id), p.section, p.text)) for p in head]
        scores = [float(s) for s in model.predict(pairs, show_progress_bar=False)] if pairs else []
        return blend(known, scores, self.config.reranker_weight, self.config.rrf_k)
