"""What a run did, in a person's words: one line per stage with its time, from the run's own events
(the per-partition materialisations and the step durations)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import dagster as dg

from assets.sql_models import KEY_PREFIX as MODEL_PREFIX
from assets.sql_models import catalogue_models

Metadata = dict[str, object]


def _sum(rows: list[Metadata], key: str) -> int:
    """Σ of a count over the rows; a row without it (or with a zero, an empty value) adds nothing."""
    return sum(int(value) for r in rows if isinstance(value := r.get(key), (int, float, str)) and value)


# Per-document stages: summarised over the documents that went through (set-aside ones excluded).
DOCUMENT_STAGES: dict[str, Callable[[list[Metadata]], str]] = {
    "source_document": lambda rows: f"checked {len(rows)} sources",
    "parsed_document": lambda rows: f"parsed {len(rows)} documents, {_sum(rows, 'pages')} pages",
    "passages": lambda rows: f"chunked {len(rows)} documents into {_sum(rows, 'passages')} passages",
    "document_metadata": lambda rows: (
        f"described {len(rows)} documents, {sum(1 for r in rows if r.get('title'))} with a title"
    ),
    "passage_embeddings": lambda rows: (
        f"embedded {len(rows)} documents, {_sum(rows, 'pieces')} pieces ({_sum(rows, 'from_cache')} from cache)"
    ),
}
SHOWN_VALUES = 3
NO_ERROR_MESSAGE = "the step failed without an error message"
WIDTH = 70


class RunFailed(RuntimeError):
    """A run of ours failed; the message names the job, the run and the step's own failure."""


@dataclass
class RunOutcome:
    # check -> passed; a check of WARN severity counts as passed here (the state may be served) and
    # is listed in `warnings` with its description when it did not pass
    checks: dict[str, bool] = field(default_factory=dict)
    warnings: dict[str, str] = field(default_factory=dict)
    set_aside: dict[str, tuple[str, str]] = field(default_factory=dict)  # document_id -> (file, reason)
    stages: list[tuple[str, float, list[Metadata]]] = field(default_factory=list)
    failure: str = ""

    def metadata(self, asset: str) -> Metadata:
        """The last materialisation metadata of `asset` in this run."""
        return next(rows[-1] for name, _, rows in self.stages if name == asset)

    @classmethod
    def of(cls, result: dg.ExecuteInProcessResult) -> RunOutcome:
        seconds = {
            e.step_key: e.step_success_data.duration_ms / 1000
            for e in result.all_events
            if e.event_type == dg.DagsterEventType.STEP_SUCCESS
        }
        rows: dict[str, list[Metadata]] = {}
        for event in result.get_asset_materialization_events():
            materialization = event.materialization
            rows.setdefault(materialization.asset_key.to_user_string(), []).append(
                {k: v.value for k, v in materialization.metadata.items()}
            )
        checks, warnings = {}, {}
        for e in result.get_asset_check_evaluations():
            name = f"{e.asset_key.to_user_string()}:{e.check_name}"
            warned = not e.passed and e.severity == dg.AssetCheckSeverity.WARN
            checks[name] = e.passed or warned
            if warned:
                warnings[name] = e.description or "did not pass"
        failures = [e.step_failure_data for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_FAILURE]
        failure = "; ".join(
            (
                f.user_failure_data.description
                if f.user_failure_data and f.user_failure_data.description
                else f.error.message.strip()
                if f.error
                else NO_ERROR_MESSAGE
            )
            for f in failures
        )
        # the dbt models are one step (the dbt build) that materialises every model
        step = {a: catalogue_models.op.name if a.startswith(f"{MODEL_PREFIX}/") else a for a in rows}
        return cls(
            checks=checks,
            warnings=warnings,
            stages=[(asset, seconds.get(step[asset], 0.0), found) for asset, found in rows.items()],
            failure=failure,
        )

    def merge(self, other: RunOutcome) -> None:
        self.checks.update(other.checks)
        self.warnings.update(other.warnings)
        self.set_aside.update(other.set_aside)
        self.stages.extend(other.stages)

    def stage_lines(self) -> list[str]:
        lines = []
        models = [asset.split("/", 1)[1] for asset, _, _ in self.stages if asset.startswith(f"{MODEL_PREFIX}/")]
        for asset, seconds, rows in self.stages:
            if asset.startswith(f"{MODEL_PREFIX}/"):  # one line for the dbt build, at its first model
                if asset.split("/", 1)[1] != models[0]:
                    continue
                text = f"dbt models: {', '.join(sorted(models))}"
            elif asset in DOCUMENT_STAGES:
                through = [r for r in rows if "set_aside" not in r]
                text = DOCUMENT_STAGES[asset](through)
                text += f" ({len(rows) - len(through)} set aside)" if len(through) < len(rows) else ""
            else:
                shown = [
                    f"{k} {v}" for k, v in rows[-1].items() if isinstance(v, (int, float, str)) and len(str(v)) <= 16
                ]
                text = f"{asset.replace('_', ' ')}: " + ", ".join(shown[:SHOWN_VALUES])
            lines.append(f"  {text[:WIDTH]:<{WIDTH}} {seconds:6.1f} s")
        return lines
