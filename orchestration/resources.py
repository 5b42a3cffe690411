"""Resource sets, beside the definitions that wire them.

local: `dagster dev`, the daemon, sensors and schedules; the state is QUANT_RAG_HOME, read when a
step starts. production: a run started in process by the CLI (orchestration.runner) on the state
directory it was given (a benchmark's state applies the ranking profile it recorded). Tests use the production
set on a temporary directory: there is no separate test set to drift from what production runs.
"""

from assets.resources import StateResource
from assets.sql_models import dbt_resource
from corpus.state.layout import StateLayout


def local_resources() -> dict:
    return {"state": StateResource(), "dbt": dbt_resource()}


def production_resources(layout: StateLayout) -> dict:
    return {"state": StateResource(home=str(layout.root)), "dbt": dbt_resource()}
