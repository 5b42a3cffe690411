"""The one Definitions object: assets, checks, jobs, sensors, schedules, resources."""

import dagster as dg

from orchestration.jobs import corpus_job, document_job, evaluation_job
from orchestration.pipeline import ASSET_CHECKS, ASSETS
from orchestration.removal import remove_document_job
from orchestration.resources import local_resources
from orchestration.schedules import nightly_evaluation
from orchestration.sensors import inbox_sensor, refresh_after_ingest

defs = dg.Definitions(
    assets=ASSETS,
    asset_checks=ASSET_CHECKS,
    jobs=[document_job, corpus_job, evaluation_job, remove_document_job],
    sensors=[inbox_sensor, refresh_after_ingest],
    schedules=[nightly_evaluation],
    resources=local_resources(),
    # Every step of a run in the run's own process: the steps of refresh_corpus share the loaded
    # embedding model instead of each starting a process that loads it again.
    executor=dg.in_process_executor,
)
