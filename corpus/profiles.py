"""Per-corpus ranking profiles: named sets of ServedConfig values for a corpus of another kind.

The served defaults were chosen on the library. A corpus of another kind may rank better with
other settings; such a profile is chosen by cross-validation on the corpus's dev split, never
fitted on the split it is reported on, and every report and MLflow run names the profile it ran
under. A server applies one by name: QUANT_RAG_PROFILE, or the profile a benchmark's state
recorded when it was built (corpus.state.profile); explicit QUANT_RAG_* variables still win
(ServedConfig.from_env). This module holds plain data so that corpus.config can read it.
"""

from __future__ import annotations

PROFILE_ENV = "QUANT_RAG_PROFILE"

# TAT-QA (annual-report tables and their paragraphs; questions full of years, line items and
# amounts): lexical evidence dominates, and RRF throws away how far BM25's leader is ahead, so the
# rankings are fused convexly, leaning on BM25, with English stop words out of BM25 (its questions'
# "what was the ... in ..." otherwise match every table) and a lower k1 (a question's line-item
# terms saturate sooner). MaxSim blended with that fusion adds what the pooled vector missed. A
# context's table and paragraphs are one document (ingest.parsing.beir) and each passage gets its
# document's best candidate score on top: a question's table rises with the paragraph that names
# its line item, and the other way round. Every value was chosen by 2-fold cross-validation on
# TAT-QA dev, folds split by context (docs/measurements.md, "Retrieval quality").
PROFILES: dict[str, dict[str, object]] = {
    "tatqa": {
        "fusion": "convex",
        "dense_weight": 0.1,
        "bm25_weight": 0.9,
        "bm25_stopwords": "en",
        "bm25_k1": 0.5,
        "late_interaction": True,
        "late_interaction_weight": 0.5,
        "candidate_pool": 100,
        "document_best_weight": 1.0,
    },
}


class UnknownProfile(ValueError):
    """A profile name no profile answers to."""


def profile_overrides(name: str) -> dict[str, object]:
    """The ServedConfig values of profile `name` ({} for ""); UnknownProfile names the known ones."""
    if not name:
        return {}
    if name not in PROFILES:
        raise UnknownProfile(f"{PROFILE_ENV}={name!r}: no such profile; known profiles: {', '.join(sorted(PROFILES))}")
    return dict(PROFILES[name])


def profile_for(corpus: str) -> str:
    """The profile a corpus named `corpus` ranks with (its own, when it has one), else ""."""
    return corpus if corpus in PROFILES else ""


def describe(corpus: str) -> str:
    """The profile of `corpus` as arm overrides (`fusion=convex+dense_weight=…`), or "none"."""
    overrides = PROFILES.get(corpus)
    return "+".join(f"{k}={v}" for k, v in overrides.items()) if overrides else "none"
