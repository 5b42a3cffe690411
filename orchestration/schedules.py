"""Schedules: the evaluation suite runs nightly on the current corpus state."""

import dagster as dg

from orchestration.jobs import evaluation_job

nightly_evaluation = dg.ScheduleDefinition(
    name="nightly_evaluation",
    job=evaluation_job,
    cron_schedule="0 3 * * *",
    description="Runs the benchmark suite and logs to MLflow.",
)
