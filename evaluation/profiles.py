"""Per-corpus ranking profiles: ServedConfig overrides a benchmark records for its corpus.

The served defaults were chosen on the library. A corpus of another kind may rank better with
other settings, provided the benchmark records the setting it ran with; such a profile is
chosen by cross-validation on the corpus's dev split, never fitted on the split it is reported
on, and every report and MLflow run names the profile it ran under. A user serving such a corpus
sets the same fields through their QUANT_RAG_* variables (README, Configuration).
"""

from __future__ import annotations

from corpus.config import ServedConfig

# TAT-QA (annual-report tables and their paragraphs; questions full of years, line items and
# amounts): lexical evidence dominates (BM25 alone 0.516 vs dense 0.359 nDCG@10 on dev), and RRF
# throws away how far BM25's leader is ahead, so the rankings are fused convexly, leaning on BM25,
# with English stop words out of BM25 (its questions' "what was the ... in ..." otherwise match
# every table) and a lower k1 (a question's line-item terms saturate sooner). MaxSim alone
# loses to that fusion here, but blended with it (late_interaction_weight 0.5) it adds what the
# pooled vector missed. A context's table and paragraphs are one document (ingest.parsing.beir)
# and each passage gets its document's best candidate score on top: a question's table rises with
# the paragraph that names its line item, and the other way round. Every value was chosen by 2-fold
# cross-validation on TAT-QA dev, folds split by context, over a grid of product arms
# (docs/measurements.md, Retrieval quality: the grid, the CV figure and the paired gain over the
# previous profile).
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


def with_profile(config: ServedConfig, corpus: str) -> ServedConfig:
    """`config` with the profile of `corpus` applied (unchanged when it has none)."""
    overrides = PROFILES.get(corpus)
    if not overrides:
        return config
    return ServedConfig.model_validate({**config.model_dump(), **overrides})


def describe(corpus: str) -> str:
    """The profile as arm overrides (`fusion=convex+dense_weight=…`), or "none"."""
    overrides = PROFILES.get(corpus)
    return "+".join(f"{k}={v}" for k, v in overrides.items()) if overrides else "none"
