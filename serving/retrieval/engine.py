"""The ranking pipeline: from a searched text, its scope and the caller's other inputs to the
selected passages, over the parts (serving.retrieval.parts) and the scope catalogue
(serving.retrieval.catalogue). Dense, BM25 or hybrid retrieval; the inputs fused and ordered by
late interaction (serving.retrieval.cooperative); the second stage, the cross-encoder, furniture
and selection. `Engine.variant` ranks with another configuration over the same state.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np

from corpus.config import ServedConfig
from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout
from serving.abstention.coverage import COVERAGE_PASSAGES
from serving.abstention.model import DENSE_K
from serving.answer.errors import InvalidArgument
from serving.retrieval.catalogue import ScopeCatalogue
from serving.retrieval.cooperative import Contribution, Ordering, QueryInput, contributions
from serving.retrieval.first_stage import dense, fused, lexical
from serving.retrieval.furniture import drop_furniture
from serving.retrieval.input_encoding import encode_inputs, hypothetical_vector
from serving.retrieval.parts import Parts, QueryEmbedder
from serving.retrieval.rescan import rank_document, rescan
from serving.retrieval.scope import Scope
from serving.retrieval.selection import Candidate, reciprocal_rank_fusion, select, with_document_best

if TYPE_CHECKING:
    from corpus.graph.graph_store import GraphStore
    from corpus.indexes.bm25_store import BM25Index
    from corpus.vectors.vector_store_base import VectorStore

Mode = Literal["dense", "bm25", "hybrid"]
MODES: tuple[str, ...] = get_args(Mode)


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


@dataclass
class _Hybrid:
    """What the hybrid pipeline hands back: the pool, each input's dense ranking and own order,
    whether MaxSim ordered the pool, and the question's token vectors and MaxSim rows."""

    ranked: list[Candidate]
    denses: list[list[Candidate]]
    rankings: list[list[Candidate]]
    late: bool
    question_tokens: np.ndarray | None
    question_rows: dict[str, np.ndarray]


class Engine:
    """Ranks passages for a search over its parts and scope catalogue."""

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
        """The parts (serving.retrieval.parts.Parts) of `layout` at `signature`; those passed are
        used as they are, the others open on first use."""
        given = {"reader": reader, "embedder": embedder, "vectors": vectors, "bm25": bm25, "graph": graph}
        self._attach(Parts(layout, config, signature, **{k: v for k, v in given.items() if v is not None}))

    def _attach(self, parts: Parts, catalogue: ScopeCatalogue | None = None) -> None:
        self.parts = parts
        self.config: ServedConfig = parts.config  # what it ranks with, fixed for its life
        self.catalogue = catalogue or ScopeCatalogue(parts)
        # Over a large state the dense search runs here while BM25 scores in the caller's thread.
        self._threads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="engine-dense")

    def variant(self, config: ServedConfig, **parts: Any) -> Engine:
        """An engine ranking with `config` over this engine's state (Parts.variant: every part
        `config` opens the same way is shared; `parts` replace any of them)."""
        engine = Engine.__new__(Engine)
        shared = self.catalogue if "reader" not in parts else None  # the catalogue reads the reader
        engine._attach(self.parts.variant(config, **parts), shared)
        return engine

    def close(self) -> None:
        """Release what the parts hold open (Parts.close)."""
        self.parts.close()

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
        parts, config = self.parts, self.config
        inputs = [QueryInput("question", text), *others]
        allowed = self.catalogue.documents_in_scope(scope)
        size = max(pool or config.candidate_pool, limit)
        if allowed is not None and not allowed:
            return Retrieval([], 0, 0, False, inputs=contributions(inputs, [], [], config.rrf_k, limit))
        reranked, hybrid = False, None
        if mode == "hybrid":
            hybrid = self._hybrid(inputs, size, allowed, scope)
            ranked, denses, rankings = hybrid.ranked, hybrid.denses, hybrid.rankings
            if parts.reranker_name != "none":
                from serving.retrieval.reranking import rerank  # loads the cross-encoder's stack

                ranked, reranked = rerank(parts, text, ranked), True
        else:
            rankings = [self._single(i, mode, size, allowed, scope) for i in inputs]
            denses = rankings if mode == "dense" else []
            ranked = (
                rankings[0]
                if len(inputs) == 1
                else reciprocal_rank_fusion(rankings, config.rrf_k, [i.weight for i in inputs])
            )
        reader = parts.reader
        hits = select(
            drop_furniture(ranked, reader.passages, text),
            reader.passages,
            reader.near_duplicates,
            limit=limit,
            per_document=per_document or config.per_document,
            min_chars=config.min_passage_chars,
            fill=config.fill_limit,
        )
        top = [tuple(c.score for c in ranking[:DENSE_K]) for ranking in denses]
        hypothetical = [t for i, t in zip(inputs, top) if i.kind == "hypothetical"]
        return Retrieval(
            hits,
            len(ranked),
            None if allowed is None else len(allowed),
            reranked,
            top[0][0] if top and top[0] else None,
            hybrid.late if hybrid else False,
            top[0] if top else (),
            hypothetical[0] if hypothetical else (),
            contributions(inputs, rankings, hits, config.rrf_k, limit),
            hybrid.question_tokens if hybrid else None,
            tuple(c.chunk_id for c in rankings[0][:COVERAGE_PASSAGES]) if len(inputs) > 1 and rankings else (),
            hybrid.question_rows if hybrid else {},
        )

    def _single(
        self, searched: QueryInput, mode: Mode, size: int, allowed: set[str] | None, scope: Scope
    ) -> list[Candidate]:
        """One input's ranking in dense or bm25 mode."""
        if mode == "bm25":
            return lexical(self.parts, searched.text, size, allowed)
        vector = hypothetical_vector(self.parts, searched.text) if searched.kind == "hypothetical" else None
        return dense(self.parts, searched.text, size, allowed, scope, vector)

    def _hybrid(self, inputs: list[QueryInput], size: int, allowed: set[str] | None, scope: Scope) -> _Hybrid:
        """Every input's dense and BM25 fused, the inputs fused by weight and cut to `size`,
        reordered by late interaction when its index is there (serving.retrieval.cooperative), the
        second stage (serving.retrieval.rescan), then the opt-in document rule. Inputs are
        embedded with their tokens when late interaction runs."""
        parts, config = self.parts, self.config
        tokens = parts.tokens if config.late_interaction else ()
        encoded = (
            encode_inputs(parts, inputs)
            if tokens
            else [(hypothetical_vector(parts, i.text) if i.kind == "hypothetical" else None, None) for i in inputs]
        )
        stages = [fused(parts, self._threads, i.text, v, size, allowed, scope) for i, (v, _) in zip(inputs, encoded)]
        index = tokens[0] if tokens else None
        ordering = Ordering(inputs, [pool for pool, _ in stages], index, [t for _, t in encoded], config)
        ranked = ordering.order(ordering.pool(size))
        passages = parts.reader.passages
        if config.rescan_documents:
            vector = encoded[0][0] if encoded[0][0] is not None else parts.embedder.embed_query(inputs[0].text)
            ranker = partial(rank_document, parts, inputs[0].text, vector, ordering)
            ranked = rescan(ranked, passages, ranker, config.rescan_documents, config.rescan_per_document)
        if config.document_best_weight:
            ranked = with_document_best(ranked, passages, config.document_best_weight)
        return _Hybrid(
            ranked, [d for _, d in stages], ordering.rankings, ordering.late, encoded[0][1], ordering.question_rows
        )
