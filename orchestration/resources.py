"""Resource sets per environment: local (state from QUANT_RAG_HOME) and test (an explicit folder)."""

from pathlib import Path

from assets.resources import StateResource


def local_resources() -> dict:
    return {"state": StateResource()}


def test_resources(home: Path) -> dict:
    return {"state": StateResource(home=str(home))}
