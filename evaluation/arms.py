"""Evaluation arms: a retrieval mode, a candidate pool and configuration overrides.

    MODE[@POOL][+FIELD=VALUE...]     e.g. hybrid, hybrid@100, hybrid+per_document=5+bm25_stopwords=en

MODE may also name a cooperative arm (serving.retrieval.cooperative): the default mode's search fed the
question set's blind expansions as a caller would pass them, `coop` both the rephrasings and the
hypothetical passage, `coop_alt` the rephrasings only, `coop_hyp` the hypothetical passage only.

FIELD is any `ServedConfig` field that changes ranking (validated by the config model itself), so
every lever of the engine can be compared paired against the served default without editing code.
An arm's engine is the base engine's variant (`Engine.variant`): it shares the reader, model and
vector store; a BM25 index built with another analyser or other parameters is built in memory from
the served passages.
"""

from __future__ import annotations

import typing
import weakref
from dataclasses import dataclass

from corpus.config import ServedConfig
from corpus.indexes.bm25_store import BM25Index
from ingest.indexes.bm25 import bm25_rows
from serving.retrieval.engine import MODES, Engine, Mode

MIN_POOL, MAX_POOL = 10, 500
# cooperative arm -> the expansions it passes (alternatives, hypothetical passage)
COOPERATIVE = {"coop": (True, True), "coop_alt": (True, False), "coop_hyp": (False, True)}
COOPERATIVE_MODE = "hybrid"
# Fields an arm may not override: they name the state's model and stores, not a ranking choice
# (passage_runtime names the stored vectors: comparing it takes two states, docs/measurements.md
# "Ingestion").
FIXED_FIELDS = frozenset(
    {
        "embedding_model",
        "embedding_model_path",
        "embedding_revision",
        "query_instruction",
        "vector_backend",
        "qdrant_url",
        "passage_runtime",
    }
)
BM25_FIELDS = ("bm25_k1", "bm25_b", "bm25_stopwords")
# base engine -> its arms' engines; an engine's arms go with it
_VARIANTS: weakref.WeakKeyDictionary[Engine, dict[ServedConfig, Engine]] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Arm:
    mode: Mode
    pool: int | None
    overrides: tuple[tuple[str, str], ...]
    expansions: tuple[bool, bool] = (False, False)  # passes the alternatives, the hypothetical passage

    def config(self, base: ServedConfig) -> ServedConfig:
        """The base configuration with this arm's overrides, validated by the config model."""
        if not self.overrides:
            return base
        values = base.model_dump()
        for name, raw in self.overrides:
            values[name] = None if raw in ("none", "null") and _accepts_none(name) else raw
        return ServedConfig.model_validate(values)


def _accepts_none(name: str) -> bool:
    """True when the field may be None ("none" is then None; bm25_stopwords=none stays the word)."""
    return type(None) in typing.get_args(ServedConfig.model_fields[name].annotation)


def parse_arm(spec: str) -> Arm:
    """`MODE[@POOL][+FIELD=VALUE...]` -> Arm; ValueError naming what is accepted."""
    head, *pairs = spec.split("+")
    mode, _, pool = head.partition("@")
    expansions = COOPERATIVE.get(mode, (False, False))
    mode = COOPERATIVE_MODE if mode in COOPERATIVE else mode
    if mode not in MODES or (pool and not (pool.isdigit() and MIN_POOL <= int(pool) <= MAX_POOL)):
        raise ValueError(
            f"unknown arm {spec!r}: expected one of {MODES + tuple(COOPERATIVE)} optionally followed by "
            f"@POOL ({MIN_POOL}-{MAX_POOL}) and +FIELD=VALUE overrides"
        )
    overrides = []
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or name not in ServedConfig.model_fields or name in FIXED_FIELDS:
            raise ValueError(f"arm {spec!r}: {pair!r} is not FIELD=VALUE of a ranking field of ServedConfig")
        overrides.append((name, value))
    known: dict[str, Mode] = {m: m for m in typing.get_args(Mode)}
    arm = Arm(known[mode], int(pool) if pool else None, tuple(overrides), expansions)
    arm.config(ServedConfig())  # refuse a bad value now, not mid-run
    return arm


def arm_engine(base: Engine, config: ServedConfig) -> Engine:
    """An engine for `config` sharing `base`'s reader, model and vector store (built once per config);
    a BM25 index with other settings is built in memory from the served passages."""
    if config == base.config:
        return base
    variants = _VARIANTS.setdefault(base, {})
    if config not in variants:
        bm25 = {}
        if any(getattr(config, f) != getattr(base.config, f) for f in BM25_FIELDS):
            reader = base.parts.reader
            rows = bm25_rows((reader.title(p.document_id), p) for p in reader.passages.values())
            bm25["bm25"] = BM25Index.in_memory(
                rows, config.bm25_k1, config.bm25_b, config.analyzer, base.parts.signature or ""
            )
        variants[config] = base.variant(config, **bm25)
    return variants[config]
