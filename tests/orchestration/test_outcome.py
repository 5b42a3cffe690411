"""The run summary a person reads: one line per stage, the dbt build as one line with its step time."""

from __future__ import annotations

from orchestration.outcome import RunOutcome


def test_dbt_models_make_one_line_and_other_stages_keep_theirs():
    outcome = RunOutcome(
        stages=[
            ("parsed_document", 12.5, [{"pages": 3}, {"pages": 4}]),
            ("sql/documents", 2.0, [{"Execution Duration": 0.468255, "status": "success"}]),
            ("sql/passages", 2.0, [{"Execution Duration": 0.119504, "status": "success"}]),
            ("bm25_index", 6.6, [{"documents": 2418, "rebuilt": 1}]),
        ]
    )
    lines = outcome.stage_lines()
    assert len(lines) == 3
    assert lines[0].split()[:5] == ["parsed", "2", "documents,", "7", "pages"]
    assert lines[1].split()[:4] == ["dbt", "models:", "documents,", "passages"] and lines[1].endswith("2.0 s")
    assert "Execution Duration" not in "\n".join(lines)
    assert lines[2].startswith("  bm25 index: documents 2418, rebuilt 1") and lines[2].endswith("6.6 s")


def test_a_step_failure_without_an_error_is_still_reported():
    """A step failure may carry neither a dg.Failure's description nor an error: the summary says
    so, instead of failing on the missing error and hiding the run's failure."""
    from types import SimpleNamespace

    import dagster as dg
    from dagster._core.execution.plan.objects import StepFailureData

    from orchestration.outcome import NO_ERROR_MESSAGE

    failed = dg.DagsterEvent(
        event_type_value=dg.DagsterEventType.STEP_FAILURE.value,
        job_name="job",
        event_specific_data=StepFailureData(error=None, user_failure_data=None),
    )
    result = SimpleNamespace(
        all_events=[failed], get_asset_materialization_events=lambda: [], get_asset_check_evaluations=lambda: []
    )
    assert RunOutcome.of(result).failure == NO_ERROR_MESSAGE
