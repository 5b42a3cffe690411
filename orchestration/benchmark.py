"""A benchmark's corpus through the library's ingestion jobs, into a state of its own.

`quant-rag eval --bench <BEIR set>` evaluates over the published state of the set's corpus under
`<home>/benchmarks/<name>-<corpus hash>/` (ingest.publication.benchmark): reused when complete, else ingested
first by the same jobs as the library (its own Dagster instance, one partition per document). The
state records the benchmark's ranking profile (corpus.state.profile) before its steps run, so its
indexes are built, evaluated and served with it. The evaluation itself only runs queries and
statistics over that state.
"""

from __future__ import annotations

from assets.evaluation import benchmark_corpus
from corpus.config import ServedConfig
from corpus.profiles import profile_for
from corpus.state.generations import pointed_generation
from corpus.state.layout import StateLayout
from corpus.state.profile import record_profile, state_config
from corpus.state.signature import recorded_signature
from ingest.publication.benchmark import BenchmarkState, benchmark_layout, read_state, register_corpus, write_marker
from orchestration.console import CONSOLE
from orchestration.outcome import RunFailed
from orchestration.runner import IngestReport, evaluate, ingest_registered


def ingest_benchmark(layout: StateLayout, name: str, corpus: dict[str, dict]) -> IngestReport:
    """Ingest benchmark `name`'s BEIR corpus (BEIR id -> record) into its own state `layout`
    through the library's jobs, under the benchmark's ranking profile (recorded in the state first),
    publish it and write its marker (ingest.publication.benchmark). A record set aside fails the build: every
    judged record must be served."""
    record_profile(layout.ensure(), profile_for(name))
    report = ingest_registered(
        layout, lambda: register_corpus(layout, name, corpus), {"benchmark": name}, {}, registration_order=True
    )
    if report.set_aside:
        raise RunFailed(
            f"{name}: {len(report.set_aside)} document(s) set aside, e.g. {next(iter(report.set_aside.items()))}"
        )
    generation = pointed_generation(layout.published)
    if (
        report.signature is None
        or generation is None
        or recorded_signature(layout.viewing(generation)) != report.signature
    ):
        raise RunFailed(
            f"{name}: the benchmark state was not published (checks failed: "
            f"{sorted(k for k, ok in report.checks.items() if not ok)})"
        )
    write_marker(layout, name, corpus, report.signature, state_config(layout))
    return report


def prepare_benchmark(home: StateLayout, name: str, corpus: dict[str, dict]) -> BenchmarkState:
    """The published state of benchmark `name`'s BEIR corpus under `home` (ingest.publication.benchmark): reused
    when complete for the index settings its evaluation reads, else ingested through the jobs first."""
    layout = benchmark_layout(home, name, corpus)
    config = ServedConfig.from_env(profile_for(name))  # what its state records once built
    state = read_state(layout, config)
    if state is None:
        CONSOLE.lines([f"ingesting benchmark {name} ({len(corpus)} records) into {layout.root}"])
        ingest_benchmark(layout, name, corpus)
        state = read_state(layout, config)
    if state is None:
        raise RunFailed(f"{name}: the benchmark state under {layout.root} is not complete after its ingestion")
    return state


def evaluate_over_state(
    layout: StateLayout, bench: str, arms: list[str], split: str | None = None, limit: int | None = None
) -> dict:
    """`quant-rag eval`: a BEIR benchmark's state prepared (ingested unless published already),
    then the `evaluate` job on `layout`'s instance (orchestration.runner.evaluate)."""
    corpus = benchmark_corpus(bench)
    if corpus is not None:
        prepare_benchmark(layout.ensure(), *corpus)
    return evaluate(layout, bench, arms, split, limit)
