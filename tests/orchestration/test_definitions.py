"""The Definitions object is pinned: assets, checks, jobs, sensors and schedules."""

import dagster as dg

from orchestration.definitions import defs


def test_asset_keys_are_pinned():
    keys = {k.to_user_string() for a in defs.assets for k in a.keys}
    assert keys == {
        "source_document",
        "parsed_document",
        "passages",
        "document_metadata",
        "passage_embeddings",
        "overlays",
        "catalogue",
        "corpus_signature",
        "vector_index",
        "bm25_index",
        "entity_graph",
        "passage_store",
        "token_index",
        "published_state",
        "benchmarks",
        "evaluation_runs",
        "sql/documents",
        "sql/passages",
        "sql/bibliography",
        "sql/coverage",
    }  # the dbt models


def test_checks_jobs_sensors_schedules_are_pinned():
    checks = {c.name for c in defs.resolve_asset_graph().asset_check_keys}
    assert {
        "no_forbidden_cuts",
        "anchors_round_trip",
        "frozen_signature_unchanged",
        "unique_passages_chunk_id",
        "passages_whole",
        "metadata_coverage",
        "index_counts_agree",
        "signatures_coherent",
        "dense_matches_brute_force",
        "state_published",
    } <= checks
    assert {j.name for j in defs.jobs} >= {"ingest_documents", "refresh_corpus", "evaluate", "remove_document_job"}
    assert {s.name for s in defs.sensors} == {"inbox_sensor", "refresh_after_ingest"}
    assert {s.name for s in defs.schedules} == {"nightly_evaluation"}


def test_jobs_run_their_steps_in_one_process():
    # a step per process reloads the embedding model in each: refresh_corpus took 678 s vs 147 s
    for job in ("ingest_documents", "refresh_corpus", "evaluate", "remove_document_job"):
        assert defs.resolve_job_def(job).executor_def.name == "in_process", job


def test_per_document_assets_are_partitioned_by_document():
    partitioned = {k.to_user_string() for a in defs.assets if a.partitions_def is not None for k in a.keys}
    assert partitioned == {"source_document", "parsed_document", "passages", "document_metadata", "passage_embeddings"}


def test_serving_never_imports_the_orchestration_stack():
    import subprocess
    import sys

    code = (
        "import sys, serving.server, serving.cli; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('dagster', 'assets', 'orchestration', 'torch')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_private_dagster_module_is_imported():
    import re
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    pattern = re.compile(r"^\s*(from|import)\s+dagster\._", re.MULTILINE)
    offenders = [
        str(p)
        for package in ("assets", "orchestration")
        for p in (repo / package).rglob("*.py")
        if pattern.search(p.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_production_runs_use_the_production_resources(tmp_path):
    import orchestration.resources as resources
    from corpus.state.layout import StateLayout
    from orchestration.resources import local_resources, production_resources

    assert not hasattr(resources, "test_resources")
    assert production_resources(StateLayout(tmp_path))["state"].home == str(tmp_path)
    assert local_resources()["state"].home == ""


def test_the_published_copy_is_made_after_the_dbt_models():
    # published_state copies the catalogue: built before the dbt models, the copy would lack them
    parents = defs.resolve_asset_graph().get(dg.AssetKey("published_state")).parent_keys
    assert {dg.AssetKey(["sql", m]) for m in ("documents", "passages", "bibliography", "coverage")} <= parents
    assert {dg.AssetKey("catalogue"), dg.AssetKey("vector_index"), dg.AssetKey("bm25_index")} <= parents
