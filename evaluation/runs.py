"""Evaluation runs: arms (dense, bm25, hybrid, placebo) over a question set, through the server's path.

Every question goes through the server's search use case (`serving.toolkit.search`: its filters,
where a period written in the question becomes a year filter and leaves the searched text, then
retrieval and abstention) with the arm's configuration. Arms are drawn in the same run, interleaved per
question. The placebo arm re-runs the first arm's configuration under another name: its paired
difference to the first arm is the noise floor. All arms of a run share one engine over one state,
so they are only ever compared within one corpus signature (logged with every arm).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus.config import ServedConfig
from corpus.ids import sha256_hex
from corpus.profiles import describe as describe_profile
from corpus.profiles import profile_for
from corpus.reading.published import open_published
from corpus.state.layout import StateLayout
from evaluation.arms import arm_engine, parse_arm
from evaluation.datasets import (
    Expansion,
    GoldQuoteNotFound,
    chunk_documents,
    embedded_expansions,
    expansions_file,
    gold_passages,
    library_file_map,
    load_beir,
    load_expansions,
    load_library_questions,
    questions_hash,
)
from evaluation.metrics import MISS_K, NDCG_K, RECALL_KS, score_query
from ingest.publication.benchmark import benchmark_layout, read_state
from serving.answer.contract import WINDOWS
from serving.coherence import check_state
from serving.retrieval.engine import Engine
from serving.toolkit.filters import EngineContext
from serving.toolkit.search import SearchRequest, SearchResult, search

log = logging.getLogger(__name__)

PLACEBO = "placebo"
ABSENT = "absent"  # family of the absent-topic questions (negatives about topics the library lacks)
DEPTH = max(NDCG_K, MISS_K, *RECALL_KS)  # passages retrieved per question


class StateNotReady(RuntimeError):
    """The corpus state cannot be evaluated (absent or incoherent); the message says why."""


@dataclass
class Question:
    id: str
    text: str
    gains: dict[str, int]  # empty for a negative question
    family: str | None = None
    period: tuple[int | None, int | None] | None = None


@dataclass
class Target:
    """A question set bound to one corpus state and the engine that serves it."""

    benchmark: str
    benchmark_hash: str
    engine: Engine
    signature: str
    questions: list[Question]
    item_of: Callable[[str], str]  # chunk_id -> the id qrels use
    doc_of: dict[str, str] | None = None  # graded nDCG neighbour credit (library only)
    skipped: dict[str, int] = field(default_factory=dict)
    profile: str = "none"  # the corpus's ranking profile (corpus/profiles.py)
    release: Callable[[], None] | None = None  # lets go of the published generation read
    expansions: dict[str, Expansion] = field(default_factory=dict)  # question id -> blind expansions
    expansions_hash: str | None = None

    @property
    def config(self) -> ServedConfig:
        return self.engine.config

    @property
    def config_hash(self) -> str:
        return self.config.config_hash(WINDOWS)

    def close(self) -> None:
        """Release the vector store and the lease on the published generation read."""
        self.engine.close()
        if self.release is not None:
            self.release()
            self.release = None


def arm_modes(arms: list[str]) -> dict[str, str]:
    """Arm name -> arm spec (`MODE[@POOL][+FIELD=VALUE...]`); the placebo takes the first arm's spec."""
    if not arms or arms[0] == PLACEBO:
        raise ValueError("the first arm is the reference and cannot be the placebo")
    for arm in arms:
        if arm != PLACEBO:
            parse_arm(arm)
    if len(set(arms)) != len(arms):
        raise ValueError(f"arms must be distinct: {arms}")
    return {arm: arms[0] if arm == PLACEBO else arm for arm in arms}


def library_target(layout: StateLayout, config: ServedConfig, path: Path, limit: int | None = None) -> Target:
    """The library question set over the state a server started now would serve (the published
    generation, leased until `close`: an ingest in progress changes nothing); unmappable gold is skipped."""
    published = open_published(layout)
    try:
        target = _library_target(published.layout, config, path, limit)
    except BaseException:
        published.close()
        raise
    target.release = published.close
    return target


def _library_target(layout: StateLayout, config: ServedConfig, path: Path, limit: int | None) -> Target:
    if not layout.registered_document_ids():
        raise StateNotReady(
            f"no ingested corpus under {layout.root}: run `quant-rag ingest` "
            f"(or set QUANT_RAG_HOME) before evaluating the library"
        )
    report = check_state(layout, config)
    if not report.coherent:
        raise StateNotReady(report.problem())
    engine = Engine(layout, config, signature=report.signature)
    reader = engine.parts.reader
    files = library_file_map(reader)
    questions, skipped = [], {"gold_document_absent": 0, "gold_quote_not_found": 0}
    companion = absent_companion(path)
    absent = {q.id for q in load_library_questions(companion)} if companion else set()
    loaded = load_library_questions(path) + (load_library_questions(companion) if companion else [])
    for q in loaded:
        if any(item["file"] not in files for item in q.gold):
            skipped["gold_document_absent"] += 1
            continue
        try:
            gains = gold_passages(q, reader, files)
        except GoldQuoteNotFound as exc:
            log.warning("skipped: %s", exc)
            skipped["gold_quote_not_found"] += 1
            continue
        questions.append(Question(q.id, q.question, gains, ABSENT if q.id in absent else q.family, q.period))
    digest = questions_hash(path)
    expansions = load_expansions(path)
    if companion:
        digest = sha256_hex(f"{digest}{questions_hash(companion)}".encode())
        expansions |= embedded_expansions(companion)
    return Target(
        path.stem,
        digest,
        engine,
        report.signature,
        questions[:limit],
        lambda chunk: chunk,
        chunk_documents(reader),
        skipped,
        expansions=expansions,
        expansions_hash=questions_hash(expansions_file(path)) if expansions else None,
    )


def absent_companion(path: Path) -> Path | None:
    """The absent-topic questions beside a question split (library_dev.jsonl ->
    library_absent_dev.jsonl, vignettes_test.jsonl -> vignettes_absent_test.jsonl), when there:
    negatives ranked and scored for abstention only."""
    stem, _, split = path.stem.rpartition("_")
    if not stem or stem.endswith("_absent"):
        return None
    companion = path.with_name(f"{stem}_absent_{split}{path.suffix}")
    return companion if companion.exists() else None


def beir_target(
    home: StateLayout, config: ServedConfig, folder: Path, split: str | None = None, limit: int | None = None
) -> Target:
    """A BEIR set over its corpus's published state under `home` (ingest.publication.benchmark), leased until
    `close`; `quant-rag eval` ingests that state through the pipeline's jobs when it is missing."""
    beir = load_beir(folder, split)
    config = config.with_profile(profile_for(beir.name))
    state = read_state(benchmark_layout(home, beir.name, beir.corpus), config)
    if state is None:
        raise StateNotReady(
            f"{beir.name}: no published state of its corpus under {home.benchmarks} for this "
            f"configuration: `quant-rag eval --bench {folder}` ingests it first"
        )
    published = open_published(state.layout)
    engine = Engine(published.layout, config, signature=state.signature)
    corpus_of = state.corpus_of
    questions = [Question(qid, text, beir.qrels[qid]) for qid, text in beir.queries.items()]
    return Target(
        f"{beir.name}-{beir.split}",
        beir.content_hash[:12],
        engine,
        state.signature,
        questions[:limit],
        corpus_of.__getitem__,
        profile=describe_profile(beir.name),
        release=published.close,
    )


def retrieve(engine: Engine, text: str, arm_spec: str, expansion: Expansion | None = None) -> SearchResult:
    """One question searched as search_documents searches it (serving.toolkit.search), under an
    arm's configuration and pool, `DEPTH` passages deep; a cooperative arm passes the question's
    expansions as a caller would (none: the bare question)."""
    arm = parse_arm(arm_spec)
    engine = arm_engine(engine, arm.config(engine.config))
    alternatives, hypothetical = arm.expansions
    request = SearchRequest(
        text,
        mode=arm.mode,
        limit=DEPTH,
        pool=arm.pool,
        alternatives=expansion.alternatives if expansion and alternatives else (),
        hypothetical_passage=expansion.hypothetical_passage if expansion and hypothetical else None,
    )
    return search(EngineContext(engine), request)


@dataclass
class RunResult:
    target: Target
    arms: dict[str, str]  # arm -> mode
    per_query: dict[str, dict[str, dict[str, float]]]  # arm -> question -> metrics
    records: list[dict]  # one row per (arm, question)
    seconds: dict[str, float]  # retrieval time per arm


class _RememberedQueries:
    """The engine's query encoder, remembering each question's vector: every arm of a run embeds
    the same questions, and a vector depends only on the text and the model."""

    def __init__(self, encoder) -> None:
        self._encoder = encoder
        self._vectors: dict[str, Any] = {}
        self.dimension = encoder.dimension

    def embed_query(self, text: str):
        if text not in self._vectors:
            self._vectors[text] = self._encoder.embed_query(text)
        return self._vectors[text]


def run_arms(target: Target, arms: list[str]) -> RunResult:
    """Every question under every arm, interleaved; negatives are ranked but not scored."""
    modes = arm_modes(arms)
    if not target.expansions and any(any(parse_arm(spec).expansions) for spec in modes.values()):
        raise ValueError(
            f"{target.benchmark}: a cooperative arm needs the questions' expansions "
            f"(<questions>_expansions.jsonl beside the question file)"
        )
    engine = target.engine
    if not isinstance(engine.parts.embedder, _RememberedQueries):
        target.engine = engine.variant(engine.config, embedder=_RememberedQueries(engine.parts.embedder))
    per_query: dict[str, dict[str, dict[str, float]]] = {arm: {} for arm in modes}
    seconds = dict.fromkeys(modes, 0.0)
    records = []
    for q in target.questions:
        for arm, mode in modes.items():
            start = time.perf_counter()
            result = retrieve(target.engine, q.text, mode, target.expansions.get(q.id))
            found = result.found
            seconds[arm] += time.perf_counter() - start
            hits = found.hits
            ranked = [target.item_of(h.chunk_id) for h in hits]
            row = {
                "arm": arm,
                "mode": mode,
                "id": q.id,
                "family": q.family,
                "ranked": ranked,
                "top_score": hits[0].score if hits else None,
                "evidence": found.evidence,
                "no_answer": result.no_answer,
                "period": [result.period.year_min, result.period.year_max],
            }
            if q.gains:
                per_query[arm][q.id] = score_query(ranked, q.gains, target.doc_of)
                row.update(per_query[arm][q.id])
            records.append(row)
    return RunResult(target, modes, per_query, records, seconds)
