"""Overlays asset: near-duplicate passages and consolidated titles, applied wherever the corpus is read."""

import dagster as dg

from assets.partitions import retire_set_aside_partitions
from assets.resources import StateResource
from ingest.passages.overlays import write_overlays


@dg.asset(
    deps=["passages", "document_metadata"],
    group_name="corpus",
    code_version="overlays-v1",
    description="Near-duplicate passages and consolidated titles; each file's hash enters the signature. "
    "Documents set aside by the document stages are retired first.",
)
def overlays(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    set_aside = retire_set_aside_partitions(state.layout, context.instance)
    counts = write_overlays(state.layout)
    return dg.MaterializeResult(metadata={**counts, "set_aside": dict(set_aside.values())})
