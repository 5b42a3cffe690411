"""The corpus signature asset and its freeze check."""

import dagster as dg

from assets.resources import StateResource
from corpus.state.freeze import freeze_state
from corpus.state.layout import StateLayout
from ingest.publication.signature import record_signature


def frozen_check(layout: StateLayout, signature: str) -> dg.AssetCheckResult:
    state = freeze_state(layout)
    drifted = state["active"] and state["signature"] != signature
    return dg.AssetCheckResult(
        check_name="frozen_signature_unchanged",
        passed=not drifted,
        metadata={
            "frozen": state["active"],
            "frozen_signature": state["signature"] or "",
            "live_signature": signature,
            "reason": state["reason"] or "",
        },
    )


@dg.asset(
    deps=["overlays", "passages"],
    group_name="corpus",
    code_version="signature-v1",
    description="SHA-256 over documents, parser/chunker versions, passages files and overlays.",
    check_specs=[dg.AssetCheckSpec("frozen_signature_unchanged", asset="corpus_signature")],
)
def corpus_signature(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    layout = state.layout
    signature = record_signature(layout)
    context.log.info(f"corpus signature {signature}")
    return dg.MaterializeResult(
        metadata={"signature": signature},
        data_version=dg.DataVersion(signature),
        check_results=[frozen_check(layout, signature)],
    )
