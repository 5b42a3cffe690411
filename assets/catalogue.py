"""The catalogue asset: state files → raw DuckDB tables → SQL models and data tests."""


import json

import dagster as dg

from assets.resources import StateResource
from ingest.catalogue import build_catalogue


@dg.asset(deps=["passages", "document_metadata", "overlays"], group_name="corpus", code_version="catalogue-v1",
          description="DuckDB catalogue (documents, passages, bibliography, coverage) built by dbt_like_sql.",
          check_specs=[dg.AssetCheckSpec("sql_data_tests", asset="catalogue")])
def catalogue(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    counts, failures = build_catalogue(state.layout)
    return dg.MaterializeResult(
        metadata={**counts, "data_tests": json.dumps(failures)},
        check_results=[dg.AssetCheckResult(check_name="sql_data_tests", passed=not any(failures.values()),
                                           metadata={k: v for k, v in failures.items()})])
