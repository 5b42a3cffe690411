"""Dagster's records after a writer was killed (kill -9, a crash, the machine going down).

An in-process run records its partitions' materialisations when each step ends, and its end when the
run ends: killed midway, it stays STARTED for ever, and the documents it finished on disk (which the
repair rightly skips) keep no materialisation of the stages it did not close. The repair calls these
two under the writer lock, before it rolls the killed work forward, so the UI tells what the state
holds: the killed run failed, every finished document's partitions materialised.
"""

from __future__ import annotations

import dagster as dg

from orchestration.jobs import DOCUMENT_ASSETS, corpus_job, document_job

UNFINISHED = [dg.DagsterRunStatus.NOT_STARTED, dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED]
KILLED = "its writer was killed before the run ended; the next ingest's repair closed it and rolled its work forward"
RECORDED = {"recorded_by": "repair", "why": KILLED}


def close_killed_runs(instance: dg.DagsterInstance) -> list[str]:
    """Mark failed every run of the writer's jobs that an in-process execution left unfinished;
    returns their ids. Only the writer runs jobs in process, under the writer lock the caller holds,
    so none of them is alive; a run a daemon launched (it has a code origin) is the daemon's."""
    closed = []
    for job in (document_job.name, corpus_job.name):
        for run in instance.get_runs(filters=dg.RunsFilter(job_name=job, statuses=UNFINISHED)):
            if run.remote_job_origin is None:
                instance.report_run_failed(run, KILLED)
                closed.append(run.run_id)
    return closed


def record_finished_documents(instance: dg.DagsterInstance, finished: list[str]) -> int:
    """Give each finished document (complete on disk, with a partition) the materialisation of every
    per-document stage it lacks; returns how many were recorded. One query per stage reads the
    materialised partitions, whatever the number of documents."""
    recorded = 0
    for asset in DOCUMENT_ASSETS:
        key = dg.AssetKey(asset)
        done = instance.get_materialized_partitions(key)
        for document_id in finished:
            if document_id not in done:
                event = dg.AssetMaterialization(key, partition=document_id, metadata=RECORDED)
                instance.report_runless_asset_event(event)
                recorded += 1
    return recorded
