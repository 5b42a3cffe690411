"""The one Definitions object: assets, checks, jobs, sensors, schedules, resources."""

import dagster as dg

from assets import bm25, catalogue, chunk, embed, graph, metadata, overlays, parse, register, signature, vectors
from assets import evaluation as evaluation_assets
from assets.checks import CORPUS_CHECKS
from orchestration.jobs import corpus_job, document_job, evaluation_job
from orchestration.removal import remove_document_job
from orchestration.resources import local_resources
from orchestration.schedules import nightly_evaluation
from orchestration.sensors import inbox_sensor, refresh_after_ingest

defs = dg.Definitions(
    assets=dg.load_assets_from_modules([register, parse, chunk, metadata, embed, overlays, catalogue,
                                        signature, vectors, bm25, graph, evaluation_assets]),
    asset_checks=CORPUS_CHECKS,
    jobs=[document_job, corpus_job, evaluation_job, remove_document_job],
    sensors=[inbox_sensor, refresh_after_ingest],
    schedules=[nightly_evaluation],
    resources=local_resources(),
)
