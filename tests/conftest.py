"""Shared fixtures: one small slice of the bundled library, ingested once by the real pipeline."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from library_slice import slice_files  # noqa: E402
from shared_state import build_once, copy_state  # noqa: E402
from tiny_benchmark import build as build_tiny_benchmark  # noqa: E402


def _ingest_slice(home: Path) -> None:
    from corpus.state.layout import StateLayout
    from orchestration.runner import ingest

    report = ingest(StateLayout(home), slice_files())
    assert not report.set_aside, report.set_aside
    failed = [name for name, passed in report.checks.items() if not passed]
    assert not failed, failed


@pytest.fixture(scope="session")
def ingested_home(tmp_path_factory) -> Path:
    """A QUANT_RAG_HOME with SLICE ingested and indexed through the Dagster pipeline (once per
    test run, shared by xdist workers: tests/shared_state.py)."""
    return build_once(tmp_path_factory, "state", _ingest_slice)


@pytest.fixture()
def state_copy(ingested_home, tmp_path) -> Path:
    """A private copy of the ingested state that a test may damage or extend."""
    target = tmp_path / "state"
    return copy_state(ingested_home, target)


@pytest.fixture(scope="session")
def benchmark_root(tmp_path_factory) -> Path:
    """A folder holding `home/`, a QUANT_RAG_HOME whose benchmarks/ holds the tiny BEIR corpus's
    published state (tests/tiny_benchmark.py), ingested by the pipeline's jobs once per test run;
    read it, never write it."""
    return build_once(tmp_path_factory, "benchmark", build_tiny_benchmark)
