"""Overlays asset: near-duplicate passages and consolidated titles, applied wherever the corpus is read."""


import dagster as dg

from assets.resources import StateResource
from ingest.overlays import write_overlays


@dg.asset(deps=["passages", "document_metadata"], group_name="corpus", code_version="overlays-v1",
          description="Near-duplicate passages and consolidated titles; each file's hash enters the signature.")
def overlays(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    counts = write_overlays(state.layout)
    return dg.MaterializeResult(metadata=counts)
