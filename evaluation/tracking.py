"""MLflow logging of evaluation runs (docs/DESIGN.md §8): params, metrics, per-question results, plot.

Embedded default: a sqlite backend store under the state directory (`<state>/mlflow/mlflow.db`)
with artifacts beside it (`<state>/mlflow/artifacts`); MLFLOW_TRACKING_URI names a tracking
server instead. The plain folder store is not used (MLflow 3 refuses it unless
MLFLOW_ALLOW_FILE_STORE is set). Only MlflowClient is used: no global active run, nothing on stdout.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from urllib.parse import urlparse

from mlflow import MlflowClient

from evaluation.metrics.ndcg import GOLD_GAIN, NEIGHBOUR_GAIN

TRACKING_ENV = "MLFLOW_TRACKING_URI"
DATABASE_NAME = "mlflow.db"
ARTIFACTS_DIR = "artifacts"
PER_QUESTION_ARTIFACT = "per_question.json"
_NAME_FORBIDDEN = re.compile(r"[^\w\-. :/]")
# The MLflow UI opens an experiment of this kind on its runs table (not the GenAI traces view).
EXPERIMENT_KIND_TAG, EXPERIMENT_KIND = "mlflow.experimentKind", "custom_model_development"
SIGNATURE_CHARS = 8
# MLflow announces its sqlite schema set-up at INFO on every new store: noise on the main job's terminal.
for _noisy in ("mlflow.store.db.utils", "alembic"):
    logging.getLogger(_noisy).setLevel(logging.WARNING)
RUN_TAGS = ("arm", "benchmark", "corpus_signature", "config_hash", "model")


def gain_rule(document_credit: bool) -> str:
    """How the per-question nDCG was scored, said where the per-question rows are read."""
    rule = f"nDCG@10 gains: {GOLD_GAIN} for a passage holding the gold quote"
    if not document_credit:
        return rule + " (the benchmark's judged gains, as given)."
    return (
        rule + f"; {NEIGHBOUR_GAIN} for another passage of a gold document, once per document (never in the "
        "ideal, so nDCG is clipped at 1). Hence nDCG > 0 with recall 0: the right document, not the gold passage."
    )


def run_name(benchmark: str, arm: str, signature: str | None) -> str:
    """`benchmark · arm · signature[:8]`: what a person scans the runs table for."""
    return f"{benchmark} · {arm} · {(signature or 'unsigned')[:SIGNATURE_CHARS]}"


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


def _experiment_id(client: MlflowClient, uri: str, experiment: str, artifact_root: Path | None) -> str:
    found = client.get_experiment_by_name(experiment)
    if found is not None:
        if found.tags.get(EXPERIMENT_KIND_TAG) != EXPERIMENT_KIND:
            client.set_experiment_tag(found.experiment_id, EXPERIMENT_KIND_TAG, EXPERIMENT_KIND)
        return found.experiment_id
    location = _artifact_location(uri, artifact_root)
    return client.create_experiment(experiment, artifact_location=location, tags={EXPERIMENT_KIND_TAG: EXPERIMENT_KIND})


def log_evaluation(
    tracking_uri: str,
    experiment: str,
    params: dict,
    metrics: dict[str, float],
    per_question: list[dict],
    plot_path: Path | None,
    artifact_root: Path | None = None,
    name: str | None = None,
    rule: str | None = None,
) -> str:
    """Log one evaluation run and return its run_id. Metric names go through `metric_key`; the
    params named in RUN_TAGS are tags too (searchable, shown in the runs table); the per-question
    artifact is {"gain_rule": rule, "questions": rows}."""
    client = MlflowClient(tracking_uri=tracking_uri)
    tags = {key: str(params[key]) for key in RUN_TAGS if params.get(key) is not None}
    run = client.create_run(_experiment_id(client, tracking_uri, experiment, artifact_root), run_name=name, tags=tags)
    run_id = run.info.run_id
    try:
        for key, value in params.items():
            client.log_param(run_id, key, value)
        for name, value in metrics.items():
            client.log_metric(run_id, metric_key(name), float(value))
        client.log_dict(run_id, {"gain_rule": rule, "questions": per_question}, PER_QUESTION_ARTIFACT)
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
    return {
        "params": dict(run.data.params),
        "metrics": dict(run.data.metrics),
        "name": run.info.run_name,
        "tags": {k: v for k, v in run.data.tags.items() if not k.startswith("mlflow.")},
        "artifacts": sorted(a.path for a in client.list_artifacts(run_id)),
        "status": run.info.status,
        "experiment_id": run.info.experiment_id,
    }
