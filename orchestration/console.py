"""The terminal side of the writer commands: where progress lines go, what is kept off the
terminal (Dagster's event log, third-party progress bars), and the closing summary."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from corpus.state.layout import StateLayout, read_jsonl


@dataclass
class Console:
    """Where stage lines go (nowhere by default: library calls and tests stay quiet), and whether
    Dagster's own event log should reach the terminal too (`--verbose`)."""

    verbose: bool = False
    echo: Callable[[str], None] | None = None

    def lines(self, lines: Iterable[str]) -> None:
        for line in lines:
            if self.echo is not None:
                self.echo(line)


CONSOLE = Console()


def use_terminal(verbose: bool = False) -> None:
    """Stage lines on stderr; Dagster's event log only with `verbose` (it is in the instance anyway);
    no model-loading bars or notices from transformers (our lines say what is loaded)."""
    CONSOLE.verbose = verbose
    CONSOLE.echo = lambda line: print(line, file=sys.stderr, flush=True)
    if not verbose:
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
        transformers_logging.set_verbosity_error()


def corpus_line(layout: StateLayout) -> str:
    from corpus.state.signature import recorded_signature

    ids = layout.registered_document_ids()
    passages = sum(len(read_jsonl(layout.passages(d))) for d in ids if layout.passages(d).exists())
    return f"corpus: {len(ids)} documents, {passages} passages, signature {recorded_signature(layout)}"


def next_steps(layout: StateLayout) -> list[str]:
    root = layout.root
    return [
        f"state: {root}",
        "next:",
        f"  quant-rag serve   (or: claude mcp add quant-rag -e QUANT_RAG_HOME={root} -- quant-rag serve)",
        f"  QUANT_RAG_HOME={root} DAGSTER_HOME={layout.dagster_home} dagster dev -w workspace.yaml",
        f"  mlflow ui --backend-store-uri sqlite:///{layout.mlflow}/mlflow.db --workers 1",
    ]


SKIPPED_SHOWN = 3  # paths named per reason; `--json` lists them all


def skipped_lines(skipped: dict[str, str]) -> list[str]:
    """The skipped paths grouped by reason: a reason shared by many (a corpus folder's sources)
    is one line with a count and its first paths, not hundreds of lines."""
    by_reason: dict[str, list[str]] = {}
    for path, reason in skipped.items():
        by_reason.setdefault(reason, []).append(path)
    lines = []
    for reason, paths in by_reason.items():
        if len(paths) == 1:
            lines.append(f"  {paths[0]}: {reason}")
            continue
        more = f", … ({len(paths) - SKIPPED_SHOWN} more)" if len(paths) > SKIPPED_SHOWN else ""
        lines.append(f"  {len(paths)} path(s): {reason}: {', '.join(paths[:SKIPPED_SHOWN])}{more}")
    return lines


def closing_summary(layout: StateLayout, report, failed_checks: list[str]) -> str:
    """What the state now holds, what was set aside and why, what was accepted or checked with a
    warning, and the three commands to go on."""
    lines = [f"{corpus_line(layout)} ({len(report.registered)} new, {len(report.already_known)} already known)"]
    if report.set_aside:
        lines.append(f"set aside: {len(report.set_aside)} file(s), copies and reasons in {layout.quarantine}")
        lines += [f"  {name}: {reason}" for name, reason in report.set_aside.items()]
    if report.skipped:
        lines.append(f"skipped (not read): {len(report.skipped)} path(s)")
        lines += skipped_lines(report.skipped)
    if report.source_warnings:
        lines.append(f"accepted with warnings: {len(report.source_warnings)} file(s)")
        lines += [f"  {name}: {'; '.join(warnings)}" for name, warnings in report.source_warnings.items()]
    for check, warning in report.check_warnings.items():
        lines.append(f"check warning {check}: {warning}")
    if failed_checks:
        lines.append(f"checks FAILED: {', '.join(failed_checks)} (see the runs in Dagster)")
    return "\n".join(lines + next_steps(layout))


if __name__ == "__main__":  # the closing lines of scripts/main.sh
    state = StateLayout.from_env()
    print("\n".join([corpus_line(state), *next_steps(state)]))
