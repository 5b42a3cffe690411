"""Removing a document symmetrically: every trace of it leaves the per-document state."""

from __future__ import annotations

import shutil

from corpus.state.layout import StateLayout


def retire_document(layout: StateLayout, document_id: str) -> None:
    """Delete a document's registry entry, source and derived files (idempotent).

    The registry entry goes first: once it is gone the document is no longer part of the corpus,
    so a crash midway leaves only unreferenced files that the next removal or repair deletes.
    """
    entry = layout.registry_entry(document_id)
    entry.unlink(missing_ok=True)
    for suffix in (".pdf", ".md"):
        (layout.sources / f"{document_id}{suffix}").unlink(missing_ok=True)
    shutil.rmtree(layout.document_dir(document_id), ignore_errors=True)
