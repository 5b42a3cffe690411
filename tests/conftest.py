"""Shared fixtures: one small slice of the bundled library, ingested once by the real pipeline."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from assets.library import LIBRARY_ROOT  # noqa: E402

# A slice with both formats, a two-column paper, a garbled PDF and several publication years.
SLICE = [
    "pdf/kane_liu_nguyen_analyzing_limit_order_book.pdf",
    "pdf/gochez_notes_on_blcop.pdf",
    "pdf/peterson_portfolio_returns_vignette.pdf",
    "markdown/quantopian_lecture40_var_and_cvar.md",
    "markdown/quantopian_lecture44_arch_garch_and_gmm.md",
    "markdown/quantopian_lecture23_p_hacking_and_multiple_comparisons_bias.md",
    "markdown/quantopian_lecture28_market_impact_models.md",
]
EXTRA_DOCUMENT = "pdf/schumann_repairing_solutions.pdf"


def slice_files(keys: list[str] = SLICE) -> list[tuple[Path, str]]:
    return [(LIBRARY_ROOT / key, key) for key in keys]


@pytest.fixture(scope="session")
def ingested_home(tmp_path_factory) -> Path:
    """A QUANT_RAG_HOME with SLICE ingested and indexed through the Dagster pipeline."""
    from corpus.state import StateLayout
    from orchestration.runner import ingest

    home = tmp_path_factory.mktemp("state")
    report = ingest(StateLayout(home), slice_files())
    assert not report.set_aside, report.set_aside
    failed = [name for name, passed in report.checks.items() if not passed]
    assert not failed, failed
    return home


@pytest.fixture()
def state_copy(ingested_home, tmp_path) -> Path:
    """A private copy of the ingested state that a test may damage or extend."""
    target = tmp_path / "state"
    shutil.copytree(ingested_home, target, ignore=shutil.ignore_patterns("writer.lock"))
    return target
