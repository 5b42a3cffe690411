"""MLflow logging of evaluation runs (DESIGN §8): params, metrics, per-question results, plot.

Embedded default: a sqlite backend store under the state directory (`<state>/mlflow/mlflow.db`)
with artifacts beside it (`<state>/mlflow/artifacts`); MLFLOW_TRACKING_URI names a tracking
server instead. The plain folder store is not used (MLflow 3 refuses it unless
MLFLOW_ALLOW_FILE_STORE is set). Only MlflowClient is used: no global active run, nothing on stdout.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlparse

from mlflow import MlflowClient

TRACKING_ENV = "MLFLOW_TRACKING_URI"
DATABASE_NAME = "mlflow.db"
ARTIFACTS_DIR = "artifacts"
PER_QUESTION_ARTIFACT = "per_question.json"
_NAME_FORBIDDEN = re.compile(r"[^\w\-. :/]")


def tracking_uri(mlflow_dir: Path) -> str:
    """MLFLOW_TRACKING_URI when set, else the sqlite store in `mlflow_dir` (StateLayout.mlflow)."""
    return os.environ.get(TRACKING_ENV) or f"sqlite:///{Path(mlflow_dir).resolve() / DATABASE_NAME}"


def metric_key(name: str) -> str:
    """An MLflow-legal metric name: '@' is not allowed ("ndcg@10" -> "ndcg_at_10")."""
    return _NAME_FORBIDDEN.sub("_", name.replace("@", "_at_"))


def _artifact_location(uri: str, artifact_root: Path | None) -> str | None:
    if artifact_root is not None:
        return Path(artifact_root).resolve().as_uri()
    parsed = urlparse(uri)
    if parsed.scheme == "sqlite":  # keep artifacts beside the database, never in the CWD
        return (Path(parsed.path).parent / ARTIFACTS_DIR).resolve().as_uri()
    return None  # a tracking server chooses its own artifact store


def _experiment_id(client: MlflowClient, uri: str, experiment: str,
                   artifact_root: Path | None) -> str:
    found = client.get_experiment_by_name(experiment)
    if found is not None:
        return found.experiment_id
    location = _artifact_location(uri, artifact_root)
    return client.create_experiment(experiment, artifact_location=location)


def log_evaluation(tracking_uri: str, experiment: str, params: dict, metrics: dict[str, float],
                   per_question: list[dict], plot_path: Path | None,
                   artifact_root: Path | None = None) -> str:
    """Log one evaluation run and return its run_id. Metric names go through `metric_key`."""
    client = MlflowClient(tracking_uri=tracking_uri)
    run = client.create_run(_experiment_id(client, tracking_uri, experiment, artifact_root))
    run_id = run.info.run_id
    try:
        for key, value in params.items():
            client.log_param(run_id, key, value)
        for name, value in metrics.items():
            client.log_metric(run_id, metric_key(name), float(value))
        client.log_dict(run_id, per_question, PER_QUESTION_ARTIFACT)
        if plot_path is not None:
            client.log_artifact(run_id, str(plot_path))
    except BaseException:
        client.set_terminated(run_id, status="FAILED")
        raise
    client.set_terminated(run_id)
    return run_id


def read_run(tracking_uri: str, run_id: str) -> dict:
    """params, metrics (MLflow names), artifact file names and status of a logged run."""
    client = MlflowClient(tracking_uri=tracking_uri)
    run = client.get_run(run_id)
    return {"params": dict(run.data.params), "metrics": dict(run.data.metrics),
            "artifacts": sorted(a.path for a in client.list_artifacts(run_id)),
            "status": run.info.status, "experiment_id": run.info.experiment_id}
