"""Sensors: the inbox watcher, and the corpus refresh after documents are ingested."""


import dagster as dg

from assets.partitions import documents_partitions
from ingest.register import register_file
from corpus.state import StateLayout
from orchestration.jobs import corpus_job, document_job

INBOX_SUFFIXES = {".pdf", ".md", ".markdown"}


def inbox_files(layout: StateLayout) -> list:
    return sorted(p for p in layout.inbox.iterdir() if p.is_file() and not p.name.startswith("."))


@dg.sensor(job=document_job, minimum_interval_seconds=15, default_status=dg.DefaultSensorStatus.RUNNING,
           description="Registers new files dropped in $QUANT_RAG_HOME/inbox and requests their ingestion.")
def inbox_sensor(context: dg.SensorEvaluationContext) -> dg.SensorResult:
    layout = StateLayout.from_env().ensure()
    known = set(context.instance.get_dynamic_partitions(documents_partitions.name))
    new_ids: list[str] = []
    for path in inbox_files(layout):
        registration = register_file(layout, path)
        path.unlink(missing_ok=True)  # registered (copied under its id) or quarantined with a reason
        if registration.rejected:
            context.log.warning(f"{path.name} set aside: {registration.rejected}")
        elif registration.document_id not in known and registration.document_id not in new_ids:
            new_ids.append(registration.document_id)
    return dg.SensorResult(
        run_requests=[dg.RunRequest(partition_key=d, run_key=f"ingest:{d}") for d in new_ids],
        dynamic_partitions_requests=[documents_partitions.build_add_request(new_ids)] if new_ids else [])


@dg.run_status_sensor(run_status=dg.DagsterRunStatus.SUCCESS, monitored_jobs=[document_job],
                      request_job=corpus_job, default_status=dg.DefaultSensorStatus.RUNNING,
                      description="Refreshes overlays, catalogue, signature and indexes after an ingestion.")
def refresh_after_ingest(context: dg.RunStatusSensorContext):
    return dg.RunRequest(run_key=f"refresh:{context.dagster_run.run_id}")
