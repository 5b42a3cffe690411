"""Publishing the working state once it is coherent (corpus.published holds the mechanism)."""

from __future__ import annotations

from corpus.config import ServedConfig
from corpus.published import publish
from corpus.state import StateLayout
from ingest.checks import index_signatures


def publish_if_coherent(layout: StateLayout, config: ServedConfig) -> dict:
    """Publish when the live, recorded and every index's signature agree; otherwise leave the last
    published generation in place (readers keep serving it) and say what disagrees."""
    signatures = index_signatures(layout, config)
    live = signatures["live"]
    disagree = {name: value for name, value in signatures.items() if value != live}
    if disagree or live is None:
        return {"published": False, "signature": live or "",
                "disagree": ", ".join(f"{k}={v or 'missing'}" for k, v in sorted(disagree.items()))}
    generation = publish(layout, live)
    return {"published": True, "signature": live, "generation": generation.name}
