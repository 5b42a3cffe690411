"""Corpus-wide asset checks: whole passages, anchors, metadata coverage, index coherence.

A check that fails with ERROR severity means the state must not be served (a cut inside a word, a
drifted anchor, incoherent indexes); metadata coverage only warns (WARN severity): a document
without a title or a year is still served, cited by its file, and the run names it."""

import dagster as dg

from assets.resources import StateResource
from corpus.vectors.vector_store_base import MIN_HNSW_RECALL
from ingest.passages.integrity import anchor_mismatches, forbidden_cuts
from ingest.publication.checks import (
    brute_force_agreement,
    index_counts,
    index_signatures,
    materialised,
    metadata_coverage,
    metadata_gaps,
    missing_metadata,
)

MIN_TITLE_COVERAGE = 1.0  # every document needs a title to be citable
MIN_YEAR_COVERAGE = 0.9


@dg.asset_check(
    asset="catalogue", description="No passage boundary falls inside a word, formula, table row or code fence."
)
def passages_whole(state: StateResource) -> dg.AssetCheckResult:
    problems = forbidden_cuts(state.layout, materialised(state.layout))
    return dg.AssetCheckResult(passed=not problems, metadata={"violations": len(problems), "examples": problems[:5]})


@dg.asset_check(asset="catalogue", description="canonical[start:end] == passage text for every exact anchor.")
def anchors_round_trip(state: StateResource) -> dg.AssetCheckResult:
    bad = anchor_mismatches(state.layout, materialised(state.layout))
    return dg.AssetCheckResult(passed=not bad, metadata={"mismatches": len(bad), "examples": bad[:5]})


@dg.asset_check(
    asset="catalogue",
    name="metadata_coverage",
    description="Every document has a title; most have a year (a warning: the state is served either way).",
)
def metadata_coverage_check(state: StateResource) -> dg.AssetCheckResult:
    coverage = metadata_coverage(state.layout)
    missing = missing_metadata(state.layout)
    passed = coverage["title"] >= MIN_TITLE_COVERAGE and coverage["year"] >= MIN_YEAR_COVERAGE
    return dg.AssetCheckResult(
        passed=passed,
        severity=dg.AssetCheckSeverity.WARN,
        description=None if passed else metadata_gaps(missing, int(coverage["documents"]), ("title", "year")),
        metadata={**coverage, **{f"without_{key}": names for key, names in missing.items()}},
    )


@dg.asset_check(
    asset="vector_index",
    additional_deps=["bm25_index"],
    description="Passages with vectors = passage count = BM25 document count.",
)
def index_counts_agree(state: StateResource) -> dg.AssetCheckResult:
    counts = index_counts(state.layout, state.config)
    return dg.AssetCheckResult(passed=len(set(counts.values())) == 1, metadata=counts)


@dg.asset_check(
    asset="vector_index",
    additional_deps=["bm25_index", "entity_graph"],
    description="Every index carries the live corpus signature.",
)
def signatures_coherent(state: StateResource) -> dg.AssetCheckResult:
    signatures = index_signatures(state.layout, state.config)
    return dg.AssetCheckResult(
        passed=len(set(signatures.values())) == 1 and None not in signatures.values(),
        metadata={k: v or "missing" for k, v in signatures.items()},
    )


@dg.asset_check(asset="vector_index", description="Qdrant's top-50 equals a brute-force matrix's, in order.")
def dense_matches_brute_force(state: StateResource) -> dg.AssetCheckResult:
    result = brute_force_agreement(state.layout, state.config)
    if state.config.vector_index == "hnsw":  # approximate by design: held to a recall floor
        return dg.AssetCheckResult(passed=result["recall_at_10"] >= MIN_HNSW_RECALL, metadata=result)
    return dg.AssetCheckResult(passed=result["disagreements"] == 0, metadata=result)


CORPUS_CHECKS = [
    passages_whole,
    anchors_round_trip,
    metadata_coverage_check,
    index_counts_agree,
    signatures_coherent,
    dense_matches_brute_force,
]
