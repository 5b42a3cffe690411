"""The catalogue's dbt project, run by dagster-dbt: models as assets downstream of `catalogue`, data
tests as asset checks, tables built on the state's DuckDB file, nothing written into the repository."""

from __future__ import annotations

import subprocess

import dagster as dg
import duckdb
import pytest
from shared_state import copy_state

import assets.sql_models as sql_models
from assets.sql_models import PROJECT_DIR
from corpus.state.layout import StateLayout, read_jsonl
from orchestration.definitions import defs
from orchestration.pipeline import ASSETS
from orchestration.resources import production_resources

MODELS = {"documents", "passages", "bibliography", "coverage"}
CATALOGUE_AND_MODELS = dg.AssetSelection.assets("catalogue") | dg.AssetSelection.key_prefixes("sql")


def _materialise(layout: StateLayout, selection) -> dg.ExecuteInProcessResult:
    with dg.instance_for_test() as instance:
        return dg.materialize(
            ASSETS, selection=selection, resources=production_resources(layout), instance=instance, raise_on_error=False
        )


def _checks(result) -> dict[str, bool]:
    return {e.check_name: e.passed for e in result.get_asset_check_evaluations()}


def test_models_are_assets_downstream_of_the_catalogue_and_tests_are_checks():
    graph = defs.resolve_asset_graph()
    assert {k.path[-1] for k in graph.get_all_asset_keys() if k.path[0] == "sql"} == MODELS
    for model in ("documents", "passages"):
        assert graph.get(dg.AssetKey(["sql", model])).parent_keys == {dg.AssetKey("catalogue")}
    assert graph.get(dg.AssetKey(["sql", "bibliography"])).parent_keys == {
        dg.AssetKey(["sql", "documents"]),
        dg.AssetKey(["sql", "passages"]),
    }
    checks = {(c.asset_key.to_user_string(), c.name) for c in graph.asset_check_keys}
    assert {
        ("sql/documents", "unique_documents_document_id"),
        ("sql/documents", "documents_have_passages"),
        ("sql/passages", "unique_passages_chunk_id"),
        ("sql/passages", "relationships_passages_document_id__document_id__ref_documents_"),
    } <= checks
    job = defs.resolve_job_def("refresh_corpus")
    assert {dg.AssetKey(["sql", m]) for m in MODELS} <= set(job.asset_layer.selected_asset_keys)


@pytest.fixture(scope="module")
def built(ingested_home, tmp_path_factory):
    """A copy of the ingested slice whose model tables were dropped, rebuilt by the dbt assets."""
    import shutil

    root = tmp_path_factory.mktemp("dbt") / "state"
    copy_state(ingested_home, root)
    layout = StateLayout(root)
    shutil.rmtree(layout.dbt_target, ignore_errors=True)
    with duckdb.connect(str(layout.catalogue)) as connection:
        for model in MODELS:
            connection.execute(f"drop table {model}")
    return layout, _materialise(layout, CATALOGUE_AND_MODELS)


def test_the_dbt_resource_knows_its_version_without_a_subprocess(monkeypatch):
    """dagster-dbt asked `dbt --version` in a subprocess on every run (4.7 s here); the version of
    the dbt beside this interpreter is the installed dbt-core's, and no adapter is opened."""
    from importlib.metadata import version

    import dagster_dbt.core.resource as dagster_dbt_resource

    def no_subprocess(*args, **kwargs):
        raise AssertionError(f"a subprocess was started: {args}")

    monkeypatch.setattr(dagster_dbt_resource, "check_output", no_subprocess)
    monkeypatch.setattr(sql_models.subprocess, "run", no_subprocess)
    sql_models._dbt_version.cache_clear()
    resource = sql_models.dbt_resource()
    assert str(resource._cli_version) == version("dbt-core") and resource._cli_version.major == 1
    assert resource._initialize_dbt_core_adapter(["build"]) is None


def test_a_dbt_that_prints_no_version_is_named(tmp_path):
    """Another dbt than the one beside this interpreter is asked its version; output without one
    is reported as such (not as a failed attribute lookup)."""
    dbt = tmp_path / "dbt"
    dbt.write_text("#!/bin/sh\necho 'no version here'\n")
    dbt.chmod(0o755)
    with pytest.raises(RuntimeError, match="printed no version"):
        sql_models._dbt_version(str(dbt))


def test_the_dbt_assets_build_the_catalogue_tables(built):
    layout, result = built
    assert result.success
    materialised = {e.materialization.asset_key.to_user_string() for e in result.get_asset_materialization_events()}
    assert materialised == {"catalogue"} | {f"sql/{m}" for m in MODELS}
    assert _checks(result) and all(_checks(result).values()), _checks(result)
    ids = layout.registered_document_ids()
    with duckdb.connect(str(layout.catalogue), read_only=True) as connection:
        count = lambda table: connection.execute(f"select count(*) from {table}").fetchone()[0]  # noqa: E731
        assert count("documents") == count("bibliography") == len(ids)
        assert count("passages") == sum(len(read_jsonl(layout.passages(d))) for d in ids)
        years = [y for (y,) in connection.execute("select year from bibliography").fetchall()]
        assert years == sorted(years, key=lambda y: (y is None, -(y or 0)))  # newest first, undated last
        documents, title_coverage = connection.execute("select documents, title_coverage from coverage").fetchone()
        assert documents == len(ids) and title_coverage == 1.0
        passages_of = dict(connection.execute("select document_id, passages from bibliography").fetchall())
    assert passages_of == {d: len(read_jsonl(layout.passages(d))) for d in ids}
    assert (layout.dbt_target / "run_results.json").exists()


def test_dbt_writes_nothing_into_the_repository(built):
    assert not (PROJECT_DIR / "target").exists() and not (PROJECT_DIR / "logs").exists()
    untracked = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--", str(PROJECT_DIR)],
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
    ).stdout
    assert "target" not in untracked and "logs" not in untracked and ".user.yml" not in untracked, untracked


def test_a_broken_catalogue_fails_its_dbt_checks_not_the_run(built):
    layout, _ = built
    with duckdb.connect(str(layout.catalogue)) as connection:
        connection.execute(
            "insert into raw_passages select * from raw_passages "  # one chunk id twice
            "where document_id = (select max(document_id) from raw_sources) limit 1"
        )
        connection.execute("delete from raw_passages where document_id = (select min(document_id) from raw_sources)")
    result = _materialise(layout, dg.AssetSelection.key_prefixes("sql"))
    assert result.success
    checks = _checks(result)
    assert checks["documents_have_passages"] is False
    assert checks["unique_documents_document_id"] is True
    assert checks["unique_passages_chunk_id"] is False
    assert checks["not_null_passages_chunk_id"] is True
