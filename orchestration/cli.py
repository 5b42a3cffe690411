"""Writer-side commands: ingest, remove, freeze/unfreeze (these import dagster; serving never does)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from corpus.state.layout import INGEST_COMMAND, StateLayout
from corpus.state.lock import WriterBusyError


def ingest(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog=INGEST_COMMAND, description="Ingest and index the bundled library (default) or given files."
    )
    parser.add_argument(
        "paths", nargs="*", type=Path, help="PDF/Markdown files or folders; default: the bundled library"
    )
    parser.add_argument("--limit", type=int, default=None, help="only the first N bundled documents (quick tries)")
    parser.add_argument(
        "--verbose", action="store_true", help="also print Dagster's event log (it is always in Dagster)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    args = parser.parse_args(argv)
    from ingest.sources.intake import Intake, collect_paths
    from ingest.sources.library import library_files

    if args.paths:
        intake = collect_paths(args.paths)
    else:
        bundled: list[tuple[Path, str | None]] = list(library_files())
        intake = Intake(files=bundled[: args.limit] if args.limit else bundled)
    files = intake.files
    if args.paths and not files:  # nothing to read: say why for each path, and touch no state
        if args.json:
            print(json.dumps({"registered": 0, "skipped": intake.skipped}, indent=1))
        for path, reason in intake.skipped.items():
            print(f"skipped {path}: {reason}", file=sys.stderr)
        print("error: no file to ingest among the given paths", file=sys.stderr)
        return 1
    from orchestration.console import closing_summary, use_terminal

    use_terminal(verbose=args.verbose)
    from orchestration.runner import ingest as run_ingest

    layout = StateLayout.from_env()
    skipped = f" ({len(intake.skipped)} path(s) skipped, listed at the end)" if intake.skipped else ""
    print(f"ingesting {len(files)} files into {layout.root}{skipped}", file=sys.stderr)
    try:
        report = run_ingest(layout, intake)
    except WriterBusyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    failed = [name for name, passed in report.checks.items() if not passed]
    if args.json:
        print(
            json.dumps(
                {
                    "documents": report.documents,
                    "registered": len(report.registered),
                    "already_known": len(report.already_known),
                    "set_aside": report.set_aside,
                    "skipped": report.skipped,
                    "signature": report.signature,
                    "checks_failed": failed,
                    "check_warnings": report.check_warnings,
                    "source_warnings": report.source_warnings,
                },
                indent=1,
            )
        )
    print(closing_summary(layout, report, failed), file=sys.stderr)
    nothing_ingested = bool(files) and not report.registered and not report.already_known
    return 1 if failed or nothing_ingested else 0


def evaluate(argv: list[str]) -> int:
    """`quant-rag eval`: the `evaluate` job on the state's Dagster instance, so `evaluation_runs` is
    materialised with the arm table and the MLflow run ids; the arms are still logged to MLflow. A
    BEIR set's corpus is first ingested into its own state by the ingestion jobs, unless published."""
    from assets.evaluation import eval_command
    from orchestration.benchmark import evaluate_over_state
    from orchestration.console import use_terminal
    from orchestration.outcome import RunFailed

    use_terminal(verbose="--verbose" in argv)
    return eval_command([a for a in argv if a != "--verbose"], run=evaluate_over_state, errors=(RunFailed,))


def remove(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="quant-rag remove", description="Remove one document symmetrically.")
    parser.add_argument("document_id")
    args = parser.parse_args(argv)
    from corpus.ids import InvalidIdError, validate_document_id
    from orchestration.runner import remove as run_remove

    try:
        document_id = validate_document_id(args.document_id)
    except InvalidIdError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    layout = StateLayout.from_env()
    if document_id not in layout.registered_document_ids():
        print(
            f"error: {document_id} is not registered; nothing removed "
            f"(the list_documents tool lists the registered ids)",
            file=sys.stderr,
        )
        return 1
    try:
        signature = run_remove(layout, document_id)
    except WriterBusyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({"removed": document_id, "signature": signature}))
    return 0


def freeze_command(argv: list[str], action: str) -> int:
    parser = argparse.ArgumentParser(prog=f"quant-rag {action}", description=f"{action.title()} the corpus signature.")
    parser.add_argument("--reason", required=True, help="why (kept in the freeze history)")
    args = parser.parse_args(argv)
    from corpus.state.freeze import FreezeError, freeze, unfreeze
    from corpus.state.signature import compute_signature

    layout = StateLayout.from_env()
    try:
        state = (
            freeze(layout, compute_signature(layout), args.reason)
            if action == "freeze"
            else unfreeze(layout, args.reason)
        )
    except FreezeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(state, indent=1))
    return 0
