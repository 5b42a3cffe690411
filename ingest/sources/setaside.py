"""Per-document failure isolation: a registered document that fails in a stage is marked with its
reason, skipped by the later stages of the run, and retired once the run is over.

Retiring happens after the run, never during it: the run addresses the document's partition, so
deleting that partition mid-run would sink the rest of the batch.
"""

from __future__ import annotations

from corpus.state.layout import StateLayout, atomic_write_json, read_json
from ingest.parsing.mineru import ParserUnavailable
from ingest.sources.register import load_source, quarantine
from ingest.sources.retire import retire_document

MARKER = "set_aside.json"
# Errors of the installation, not of one document: they fail the run and quarantine nothing.
CONFIGURATION_ERRORS = (ParserUnavailable,)


def mark_set_aside(layout: StateLayout, document_id: str, stage: str, exc: BaseException) -> str:
    """Record why `document_id` failed in `stage`; returns the reason."""
    reason = f"{stage} failed: {type(exc).__name__}: {exc}"
    layout.document_dir(document_id).mkdir(parents=True, exist_ok=True)
    atomic_write_json(layout.document_dir(document_id) / MARKER, {"stage": stage, "reason": reason})
    return reason


def is_set_aside(layout: StateLayout, document_id: str) -> bool:
    return (layout.document_dir(document_id) / MARKER).exists()


def live(layout: StateLayout, document_ids: list[str]) -> list[str]:
    return [d for d in document_ids if not is_set_aside(layout, d)]


def retire_set_aside(layout: StateLayout) -> dict[str, tuple[str, str]]:
    """Quarantine and retire every marked document; returns {document_id: (file name, reason)}."""
    retired = {}
    for document_id in layout.registered_document_ids():
        if not is_set_aside(layout, document_id):
            continue
        reason = read_json(layout.document_dir(document_id) / MARKER)["reason"]
        record, path = load_source(layout, document_id)
        quarantine(layout, path, reason, name=record.original_name)
        retire_document(layout, document_id)
        retired[document_id] = (record.original_name, reason)
    return retired


def quarantined_since(layout: StateLayout, since: float) -> dict[str, str]:
    """{file: reason} of every file set aside in quarantine from time `since` on (whichever stage or
    repair did it), so a run's report misses none of them."""
    found = {}
    for path in sorted(layout.quarantine.glob("*.reason.json")):
        if path.stat().st_mtime >= since:
            record = read_json(path)
            found[record["file"]] = record["reason"]
    return found
