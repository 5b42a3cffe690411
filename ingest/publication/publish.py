"""Publishing the working state once it is coherent (corpus.reading.published holds the mechanism)."""

from __future__ import annotations

from corpus.config import ServedConfig
from corpus.reading.published import publish
from corpus.state.freeze import freeze_state
from corpus.state.layout import StateLayout
from ingest.publication.checks import index_signatures


def publish_if_coherent(layout: StateLayout, config: ServedConfig) -> dict:
    """Publish when the live, recorded and every index's signature agree and no freeze pins another
    signature; otherwise leave the last published generation in place (readers keep serving it)
    and say why."""
    signatures = index_signatures(layout, config)
    live = signatures["live"]
    disagree = {name: value for name, value in signatures.items() if value != live}
    if disagree or live is None:
        return {
            "published": False,
            "signature": live or "",
            "disagree": ", ".join(f"{k}={v or 'missing'}" for k, v in sorted(disagree.items())),
        }
    refusal = frozen_refusal(layout, live)
    if refusal:
        return {"published": False, "signature": live, "disagree": refusal}
    generation = publish(layout, live)
    return {"published": True, "signature": live, "generation": generation.name}


def frozen_refusal(layout: StateLayout, live: str) -> str | None:
    """Why `live` may not be published while the signature is frozen at another one, else None.
    A freeze pins what readers see: the change stays in the working state (its check fails) and
    servers keep the frozen generation until `quant-rag unfreeze`."""
    frozen = freeze_state(layout)
    if not frozen["active"] or frozen["signature"] == live:
        return None
    return f"frozen at {frozen['signature']} ({frozen['reason']}): unfreeze to publish {live}"
