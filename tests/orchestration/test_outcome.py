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


def test_a_check_of_warn_severity_is_a_warning_not_a_failure():
    from types import SimpleNamespace

    import dagster as dg

    def evaluation(name: str, passed: bool, severity, description=None):
        return SimpleNamespace(
            asset_key=dg.AssetKey("catalogue"),
            check_name=name,
            passed=passed,
            severity=severity,
            description=description,
        )

    evaluations = [
        evaluation("metadata_coverage", False, dg.AssetCheckSeverity.WARN, "of 3 documents, 1 without a title: a.pdf"),
        evaluation("anchors_round_trip", False, dg.AssetCheckSeverity.ERROR),
        evaluation("passages_whole", True, dg.AssetCheckSeverity.ERROR),
    ]
    result = SimpleNamespace(
        all_events=[], get_asset_materialization_events=lambda: [], get_asset_check_evaluations=lambda: evaluations
    )
    outcome = RunOutcome.of(result)
    assert outcome.checks == {
        "catalogue:metadata_coverage": True,
        "catalogue:anchors_round_trip": False,
        "catalogue:passages_whole": True,
    }
    assert outcome.warnings == {"catalogue:metadata_coverage": "of 3 documents, 1 without a title: a.pdf"}


def test_the_closing_summary_names_warnings_apart_from_failures(tmp_path):
    from corpus.state.layout import StateLayout
    from orchestration.console import closing_summary
    from orchestration.runner import IngestReport

    layout = StateLayout(tmp_path / "state")
    layout.ensure()
    report = IngestReport(
        check_warnings={"catalogue:metadata_coverage": "of 3 documents, 1 without a title: a.pdf"},
        source_warnings={"gregmisc.pdf": ["damaged PDF: 'startxref' does not point to a cross-reference table"]},
    )
    summary = closing_summary(layout, report, [])
    assert "check warning catalogue:metadata_coverage: of 3 documents, 1 without a title: a.pdf" in summary
    assert "accepted with warnings: 1 file(s)\n  gregmisc.pdf: damaged PDF: 'startxref'" in summary
    assert "FAILED" not in summary


def test_skipped_paths_are_grouped_by_reason_in_the_summary():
    from orchestration.console import SKIPPED_SHOWN, skipped_lines

    sources = {f"corpus/sources/v{i}.Rnw": "not listed in its folder's manifest.csv" for i in range(40)}
    lines = skipped_lines({**sources, "corpus/link.pdf": "dangling symbolic link"})
    assert lines[0].startswith("  40 path(s): not listed in its folder's manifest.csv: corpus/sources/v0.Rnw")
    assert lines[0].endswith(f"… ({40 - SKIPPED_SHOWN} more)") and lines[0].count(".Rnw") == SKIPPED_SHOWN
    assert lines[1] == "  corpus/link.pdf: dangling symbolic link" and len(lines) == 2
