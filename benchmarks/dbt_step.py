"""Wall time of the catalogue's dbt step (`catalogue_models`) in a refresh, with the project's
resource (assets/sql_models.CatalogueDbt) and with dagster-dbt's plain DbtCliResource, alternating
on a private copy of a state; the floor is a bare `dbt build` of the same project on the same
catalogue in the same run. `--hog` repeats everything with a CPU-bound process on the other core.

    python benchmarks/dbt_step.py --home DIR [--repeat 5] [--hog]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import harness  # noqa: E402
from dagster_dbt import DbtCliResource  # noqa: E402

import orchestration.resources as resources  # noqa: E402
from assets import sql_models  # noqa: E402
from corpus.state.layout import StateLayout  # noqa: E402
from orchestration.runner import instance_for, refresh_corpus  # noqa: E402

STEP = "catalogue_models"


def _plain() -> DbtCliResource:
    return DbtCliResource(
        project_dir=str(sql_models.PROJECT_DIR),
        profiles_dir=str(sql_models.PROJECT_DIR),
        dbt_executable=sql_models.dbt_executable(),
    )


def _step_seconds(layout: StateLayout, factory) -> float:
    resources.dbt_resource = factory  # what production_resources() builds the run's resource with
    instance = instance_for(layout)
    refresh_corpus(layout, instance)
    run = instance.get_runs(limit=1)[0]
    return next(s.end_time - s.start_time for s in instance.get_run_step_stats(run.run_id) if s.step_key == STEP)


def _bare_build(layout: StateLayout) -> float:
    env = {**os.environ, **sql_models.DBT_ENV, sql_models.CATALOGUE_ENV: str(layout.catalogue)}
    return harness.timed(
        subprocess.run,
        [
            sql_models.dbt_executable(),
            "build",
            "--quiet",
            "--project-dir",
            str(sql_models.PROJECT_DIR),
            "--profiles-dir",
            str(sql_models.PROJECT_DIR),
            "--target-path",
            str(layout.dbt_target),
            "--log-path",
            str(layout.dbt_target),
        ],
        env=env,
        check=True,
        capture_output=True,
    )[1]


def _summary(values: list[float]) -> dict:
    return {"p50_s": round(harness.percentile(values, 50), 2), "p95_s": round(harness.percentile(values, 95), 2)}


def measure(layout: StateLayout, repeat: int) -> dict:
    times = {"project": [], "plain": [], "bare dbt build (floor)": []}
    for _ in range(repeat):
        times["project"].append(_step_seconds(layout, sql_models.dbt_resource))
        times["plain"].append(_step_seconds(layout, _plain))
        times["bare dbt build (floor)"].append(_bare_build(layout))
    out = {name: _summary(values) for name, values in times.items()}
    floor = out["bare dbt build (floor)"]["p50_s"]
    for name in ("project", "plain"):
        out[name]["p50_over_floor"] = round(out[name]["p50_s"] / floor, 2)
    return out


def main() -> None:
    parser = harness.parser(__file__, __doc__, hog=True)
    parser.add_argument("--home", type=Path, required=True, help="an ingested state (copied, never changed)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dbt-step-") as scratch:
        home = Path(scratch) / "state"
        shutil.copytree(args.home, home, ignore=shutil.ignore_patterns("writer.lock"))
        layout = StateLayout(home)
        meter, report = harness.StealMeter(), {}
        for condition in harness.conditions(args):
            with harness.cpu_hog(condition == "hog"):
                report[condition] = measure(layout, args.repeat)
    harness.emit(args, report, meter=meter)


if __name__ == "__main__":
    main()
