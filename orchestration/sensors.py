"""Sensors: the inbox watcher, and the corpus refresh after documents are ingested."""

from pathlib import Path

import dagster as dg

from assets.partitions import DOCUMENTS_PARTITIONS, documents_partitions, range_tags
from corpus.state.layout import StateLayout
from corpus.state.lock import WriterBusyError
from ingest.sources.intake import take_inbox
from orchestration.jobs import corpus_job, document_job


@dg.sensor(
    job=document_job,
    minimum_interval_seconds=15,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Registers new files dropped in $QUANT_RAG_HOME/inbox and requests one run that ingests them.",
)
def inbox_sensor(context: dg.SensorEvaluationContext) -> dg.SensorResult | dg.SkipReason:
    """Registration goes through the writer's own path (writer lock, journal intent); while
    another writer holds the lock the tick is skipped and the files wait in the inbox.

    The new documents' partitions are added at the end of the partition list, so they form one
    block of consecutive keys: one run over that range ingests them all, as the CLI does (one model
    load, one corpus refresh after it), where a run per document would load the model and refresh
    the whole corpus once per file."""
    layout = StateLayout.from_env().ensure()
    try:
        intake, registrations = take_inbox(layout)
    except WriterBusyError as exc:
        return dg.SkipReason(f"{exc}; the inbox is read again at the next tick")
    if not intake.files and not intake.skipped:
        return dg.SkipReason("the inbox is empty")
    for entry, reason in intake.skipped.items():
        context.log.warning(f"{Path(entry).name} skipped: {reason}")
    known = set(context.instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS))
    new_ids: list[str] = []
    for registration in registrations:
        document_id = registration.document_id  # set on every registration not rejected
        if registration.rejected:
            context.log.warning(f"{registration.name} set aside: {registration.rejected}")
        elif document_id is not None and document_id not in known and document_id not in new_ids:
            new_ids.append(document_id)
    if not new_ids:
        return dg.SkipReason("no new document in the inbox (every file was known or set aside)")
    return dg.SensorResult(
        # No run key: the inbox, emptied by the tick, is what keeps a file from being requested twice,
        # and a key would skip the run of a document removed and dropped in again.
        run_requests=[dg.RunRequest(tags=range_tags(new_ids))],
        dynamic_partitions_requests=[documents_partitions.build_add_request(new_ids)],
    )


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.SUCCESS,
    monitored_jobs=[document_job],
    request_job=corpus_job,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Refreshes overlays, catalogue, signature and indexes after an ingestion.",
)
def refresh_after_ingest(context: dg.RunStatusSensorContext):
    return dg.RunRequest(run_key=f"refresh:{context.dagster_run.run_id}")
