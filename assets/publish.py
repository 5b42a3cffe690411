"""The published state: the coherent working state switched in for readers with one rename."""

import dagster as dg

from assets.resources import StateResource
from assets.sql_models import catalogue_models
from ingest.publication.publish import publish_if_coherent


# After the dbt models too: the published catalogue is a copy, so it must hold their tables.
@dg.asset(
    deps=[
        "catalogue",
        *catalogue_models.keys,
        "vector_index",
        "bm25_index",
        "passage_store",
        "token_index",
        "entity_graph",
    ],
    group_name="corpus",
    code_version="published-v1",
    description="A generation of every served artefact under published/, switched in atomically; "
    "servers started from now on read it.",
    check_specs=[dg.AssetCheckSpec("state_published", asset="published_state")],
)
def published_state(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    result = publish_if_coherent(state.layout, state.config)
    if not result["published"]:
        context.log.warning(f"not published, readers keep the previous state: {result['disagree']}")
    return dg.MaterializeResult(
        metadata=result,
        check_results=[
            dg.AssetCheckResult(
                check_name="state_published",
                passed=result["published"],
                metadata={"disagree": result.get("disagree", "")},
            )
        ],
    )
