"""Runs the pipeline in process on a Dagster instance under the state directory.

Used by the CLI and the tests, so `dagster dev` shows the same runs. Every write happens under the
writer lock and inside a journal intent; an intent left open by a crash is repaired first.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import dagster as dg

from assets.partitions import (
    DOCUMENTS_PARTITIONS,
    add_document_partitions,
    consecutive_blocks,
    drop_document_partitions,
    range_tags,
    retire_set_aside_partitions,
)
from corpus.config import ServedConfig
from corpus.state.journal import close_intent, open_intent, open_intents
from corpus.state.layout import StateLayout
from corpus.state.lock import writer_lock
from corpus.state.signature import recorded_signature
from ingest.passages.parse import parse_is_stale
from ingest.sources.intake import Intake, register_batch
from ingest.sources.register import Registration
from ingest.sources.retire import retire_document
from ingest.sources.setaside import quarantined_since
from orchestration.console import CONSOLE
from orchestration.jobs import corpus_job, document_job, evaluation_job
from orchestration.killed_runs import close_killed_runs, record_finished_documents
from orchestration.outcome import RunFailed, RunOutcome
from orchestration.pipeline import ASSET_CHECKS, ASSETS
from orchestration.resources import production_resources

DAGSTER_YAML = "telemetry:\n  enabled: false\n"


@dataclass
class IngestReport:
    registered: list[str] = field(default_factory=list)
    already_known: list[str] = field(default_factory=list)
    set_aside: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # paths not read (not regular files, …)
    documents: int = 0
    signature: str | None = None
    checks: dict[str, bool] = field(default_factory=dict)  # a check that only warns counts as passed
    check_warnings: dict[str, str] = field(default_factory=dict)  # check -> what it found (WARN severity)
    source_warnings: dict[str, list[str]] = field(default_factory=dict)  # file -> what validation accepted


def instance_for(layout: StateLayout) -> dg.DagsterInstance:
    """The persistent Dagster instance of this state directory (telemetry off)."""
    home = layout.dagster_home
    home.mkdir(parents=True, exist_ok=True)
    (home / "dagster.yaml").exists() or (home / "dagster.yaml").write_text(DAGSTER_YAML)
    os.environ["DAGSTER_HOME"] = str(home)
    return dg.DagsterInstance.from_config(str(home))


def _definitions(layout: StateLayout) -> dg.Definitions:
    """The pipeline's jobs bound to this state directory: CLI runs are recorded under the jobs'
    names (ingest_documents, refresh_corpus, evaluate), so their histories fill in the UI."""
    return dg.Definitions(
        assets=ASSETS,
        asset_checks=ASSET_CHECKS,
        jobs=[document_job, corpus_job, evaluation_job],
        resources=production_resources(layout),
    )


def _run(
    layout: StateLayout,
    instance,
    job_name: str,
    tags: dict | None = None,
    ops: dict | None = None,
    raise_on_error: bool = True,
) -> RunOutcome:
    """Run one job in process (`ops`: the run config of its assets). Dagster's event log goes to the
    instance (the UI shows it); the terminal gets it only when VERBOSE is set (`--verbose`). A failed
    step raises its own exception, or RunFailed with its message when not `raise_on_error`."""
    level = "DEBUG" if CONSOLE.verbose else "CRITICAL"
    run_config = {"loggers": {"console": {"config": {"log_level": level}}}, **({"ops": ops} if ops else {})}
    result = (
        _definitions(layout)
        .resolve_job_def(job_name)
        .execute_in_process(instance=instance, tags=tags or {}, run_config=run_config, raise_on_error=raise_on_error)
    )
    outcome = RunOutcome.of(result)
    if not result.success:
        raise RunFailed(f"{job_name} (Dagster run {result.run_id[:8]}) failed: {outcome.failure}")
    CONSOLE.lines([f"{job_name} (Dagster run {result.run_id[:8]})", *outcome.stage_lines()])
    return outcome


def run_documents(layout: StateLayout, instance, document_ids: list[str]) -> RunOutcome:
    """Run `ingest_documents` over the documents' partitions, one run per block of consecutive keys
    (a run never spans a document it was not asked for); then retire the documents it set aside."""
    keys = instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS)
    outcome = RunOutcome()
    for block in consecutive_blocks(keys, document_ids):
        outcome.merge(_run(layout, instance, document_job.name, range_tags(block)))
        outcome.set_aside.update(retire_set_aside_partitions(layout, instance))
    return outcome


def refresh_corpus(layout: StateLayout, instance) -> dict[str, bool]:
    return refresh_corpus_outcome(layout, instance).checks


def refresh_corpus_outcome(layout: StateLayout, instance) -> RunOutcome:
    """The `refresh_corpus` run: its checks and their warnings, its stages."""
    return _run(layout, instance, corpus_job.name)


def evaluate(
    layout: StateLayout, bench: str, arms: list[str], split: str | None = None, limit: int | None = None
) -> dict:
    """Run `evaluate` (benchmarks, then evaluation_runs for this request) on the state's instance;
    returns the summary evaluation_runs recorded in its materialisation (MLflow run ids included).
    A BEIR benchmark's state must be published first (orchestration.benchmark)."""
    request = {"bench": bench, "arms": arms, "split": split, "limit_queries": limit}
    outcome = _run(
        layout,
        instance_for(layout),
        evaluation_job.name,
        ops={"evaluation_runs": {"config": request}},
        raise_on_error=False,
    )  # a refused request is a message, not a traceback
    summary = outcome.metadata("evaluation_runs")["summary"]
    if not isinstance(summary, dict):
        raise RunFailed(f"evaluation_runs recorded no summary for {bench}")
    return summary


def _incomplete(layout: StateLayout, instance) -> list[str]:
    """Registered documents whose last per-document artefact (their vectors) is missing, or whose
    parse another parser version made (re-parsed, re-cut and re-embedded from the cache)."""
    config = ServedConfig.from_env()
    known = set(instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS))
    return [
        d
        for d in layout.registered_document_ids()
        if d not in known or not layout.embeddings(d, config.model_key).exists() or parse_is_stale(layout, d)
    ]


def repair(layout: StateLayout, instance) -> int:
    """Roll forward every open intent (ingest or remove); returns how many were repaired."""
    intents = open_intents(layout)
    if intents:
        close_killed_runs(instance)
    for path, intent in intents:
        if intent["action"] == "remove":
            for document_id in intent["document_ids"]:
                retire_document(layout, document_id)
            drop_document_partitions(instance, intent["document_ids"])
        _drop_orphan_sources(layout)
        retire_set_aside_partitions(layout, instance)  # a crash after the run, before its retirement
        pending = _incomplete(layout, instance)
        add_document_partitions(instance, pending)
        record_finished_documents(instance, sorted(set(layout.registered_document_ids()) - set(pending)))
        run_documents(layout, instance, pending)
        refresh_corpus(layout, instance)
        close_intent(path)
    return len(intents)


def _drop_orphan_sources(layout: StateLayout) -> None:
    """A source copied without its registry entry (killed in between) was never registered, and
    the temp file of an atomic write killed before its rename belongs to no one (repair runs under
    the writer lock, so no live writer owns it)."""
    registered = set(layout.registered_document_ids())
    for path in layout.sources.glob("doc-*"):
        if path.stem not in registered:
            path.unlink(missing_ok=True)
    for folder in (layout.sources, layout.registry):
        for path in folder.glob(".doc-*.tmp"):
            path.unlink(missing_ok=True)


def ingest(layout: StateLayout, files: list[tuple[Path, str | None]] | Intake) -> IngestReport:
    """Register, ingest and index `files` ((path, manifest key), or an intake with the paths it
    skipped); bad files are set aside, and every file set aside during the run is reported."""
    intake = files if isinstance(files, Intake) else Intake(files=list(files))
    return ingest_registered(
        layout,
        lambda: register_batch(layout, intake),
        {"files": [str(p) for p, _ in intake.files]},
        dict(intake.skipped),
    )


def ingest_registered(
    layout: StateLayout,
    register: Callable[[], list[Registration]],
    intent_detail: dict,
    skipped: dict[str, str],
    registration_order: bool = False,
) -> IngestReport:
    """The writer's one ingestion path (files, or a benchmark's records: orchestration.benchmark):
    `register()` runs under the writer lock inside a journal intent (`intent_detail` says what it
    reads), then the document job over every document not yet complete and the corpus job, with
    the configuration the state's steps read (assets.resources.StateResource). Reports what was
    registered, set aside and checked.

    `registration_order`: the documents' partitions follow the order they were registered in (a
    benchmark's corpus order) instead of their ids'. The embedding stage batches pieces of equal
    length in partition order, and under bf16 a batch's composition moves vectors in the fourth
    decimal: in corpus order a benchmark's vectors, hence its figures, do not depend on content ids."""
    layout.ensure()
    instance = instance_for(layout)
    report = IngestReport(skipped=skipped)
    started = time.time() - 0.05  # file times come from the kernel's coarse clock, a tick behind
    with writer_lock(layout.lock_file):
        repair(layout, instance)
        intent = open_intent(layout, "ingest", [], intent_detail)
        registrations = register()
        for registration in registrations:
            if registration.rejected:
                report.set_aside[registration.name] = registration.rejected
            elif registration.document_id is None:  # a registration is either rejected or has an id
                raise RunFailed(f"{registration.name}: registered without a document id")
            elif registration.new:
                report.registered.append(registration.document_id)
            else:
                report.already_known.append(registration.document_id)
            if registration.warnings and not registration.rejected:
                report.source_warnings[registration.name] = list(registration.warnings)
        pending = _incomplete(layout, instance)
        if registration_order:
            position = {r.document_id: n for n, r in enumerate(registrations)}
            pending.sort(key=lambda d: position.get(d, len(position)))
        add_document_partitions(instance, pending)
        documents = run_documents(layout, instance, pending)
        report.set_aside.update(dict(documents.set_aside.values()))
        report.registered = [d for d in report.registered if d not in documents.set_aside]
        refreshed = refresh_corpus_outcome(layout, instance)
        for outcome in (documents, refreshed):
            report.checks.update(outcome.checks)
            report.check_warnings.update(outcome.warnings)
        close_intent(intent)
    report.set_aside.update(quarantined_since(layout, started))  # a repair's retirements included
    report.signature = recorded_signature(layout)
    report.documents = len(layout.registered_document_ids())
    return report


def remove(layout: StateLayout, document_id: str) -> str | None:
    """Remove one document symmetrically and refresh the corpus; returns the new signature."""
    instance = instance_for(layout)
    with writer_lock(layout.lock_file):
        repair(layout, instance)
        intent = open_intent(layout, "remove", [document_id])
        retire_document(layout, document_id)
        drop_document_partitions(instance, [document_id])
        refresh_corpus(layout, instance)
        close_intent(intent)
    return recorded_signature(layout)
