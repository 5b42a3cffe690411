"""Overlays: near-duplicate passages and consolidated titles, applied wherever the corpus is read."""


import dagster as dg

from assets.integrity import load_passages
from assets.overlays_logic import consolidated_titles, near_duplicates
from assets.resources import StateResource
from corpus.models import DocumentMetadata
from corpus.state import StateLayout, atomic_write_json, read_json


def write_overlays(layout: StateLayout) -> dict[str, int]:
    """Recompute both overlays from every materialised document; rewrite only what changed."""
    ids = [d for d in layout.registered_document_ids()
           if layout.passages(d).exists() and layout.metadata(d).exists()]
    all_passages = [p for d in ids for p in load_passages(layout, d)]
    metadata = [DocumentMetadata(**read_json(layout.metadata(d))) for d in ids]
    overlays = {"near_duplicates.json": near_duplicates(all_passages),
                "titles.json": consolidated_titles(metadata)}
    for name, content in overlays.items():
        path = layout.overlays / name
        if not path.exists() or read_json(path) != content:
            atomic_write_json(path, content)
    return {name: len(content) for name, content in overlays.items()}


@dg.asset(deps=["passages", "document_metadata"], group_name="corpus", code_version="overlays-v1",
          description="Near-duplicate passages and consolidated titles; each file's hash enters the signature.")
def overlays(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    counts = write_overlays(state.layout)
    return dg.MaterializeResult(metadata=counts)
