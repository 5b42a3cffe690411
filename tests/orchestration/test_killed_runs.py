"""After a writer is killed, the repair closes its run and records the documents it finished: what a
kill -9 of `quant-rag ingest /work/debian` at half the embedding stage left in Dagster's records
(docs/measurements.md, "The R vignettes of Debian"), rebuilt on the small ingested slice."""

from __future__ import annotations

import shutil

import dagster as dg

from assets.partitions import DOCUMENTS_PARTITIONS
from corpus.state.journal import open_intent, open_intents
from corpus.state.layout import StateLayout
from orchestration.jobs import DOCUMENT_ASSETS, document_job
from orchestration.killed_runs import KILLED
from orchestration.runner import instance_for, repair


def test_repair_closes_the_killed_run_and_records_the_documents_it_finished(state_copy):
    layout = StateLayout(state_copy)
    shutil.rmtree(layout.dagster_home)  # records start empty (SQLite storage cannot wipe partitions)
    instance = instance_for(layout)
    registered = layout.registered_document_ids()
    instance.add_dynamic_partitions(DOCUMENTS_PARTITIONS, registered)
    # The killed run: planned over every document and killed before its steps recorded anything,
    # although every document's files were written.
    killed = dg.DagsterRun(job_name=document_job.name, status=dg.DagsterRunStatus.STARTED)
    instance.add_run(killed)
    open_intent(layout, "ingest", [], {"files": []})
    runs_before = len(instance.get_runs(filters=dg.RunsFilter(job_name=document_job.name)))

    assert repair(layout, instance) == 1

    closed = instance.get_run_by_id(killed.run_id)
    assert closed is not None and closed.status == dg.DagsterRunStatus.FAILURE
    [failure] = [e for e in instance.all_logs(killed.run_id) if e.dagster_event and e.dagster_event.is_run_failure]
    assert KILLED in failure.message
    for asset in DOCUMENT_ASSETS:
        assert instance.get_materialized_partitions(dg.AssetKey(asset)) == set(registered), asset
    assert instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS) == registered
    # nothing was redone: every document was complete on disk, so no document run was started
    assert len(instance.get_runs(filters=dg.RunsFilter(job_name=document_job.name))) == runs_before
    assert open_intents(layout) == []
