"""The catalogue asset: state files → raw DuckDB tables, the sources of the dbt models (assets/sql_models.py)."""

import dagster as dg

from assets.resources import StateResource
from ingest.indexes.catalogue import build_catalogue


@dg.asset(
    deps=["passages", "document_metadata", "overlays"],
    group_name="corpus",
    code_version="catalogue-v2",
    description="DuckDB catalogue: the raw tables the dbt models of dbt_like_sql/ are built on.",
)
def catalogue(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    counts = build_catalogue(state.layout)
    return dg.MaterializeResult(
        metadata={
            "documents": counts["raw_sources"],
            "passages": counts["raw_passages"],
            **{f"rows.{table}": n for table, n in counts.items()},
        }
    )
