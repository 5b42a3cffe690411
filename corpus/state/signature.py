"""Corpus signature: one short hash that names the exact corpus state every index was built from."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from corpus.ids import sha256_hex
from corpus.state.layout import StateLayout, read_json
from corpus.versions import CHUNKER_VERSION

SIGNATURE_LENGTH = 12


def _canonical_json_digest(path: Path) -> str:
    """Digest of the JSON re-serialised canonically, so re-indentation changes nothing."""
    return sha256_hex(json.dumps(read_json(path), sort_keys=True, separators=(",", ":")))


def signature_rows(layout: StateLayout) -> list[tuple[str, ...]]:
    """(document_id, source sha256, parser version, chunker version, passages sha256) per
    document whose passages are materialised, sorted."""
    rows = []
    for document_id in layout.registered_document_ids():
        passages = layout.passages(document_id)
        parsed = layout.parsed_blocks(document_id)
        if not passages.exists() or not parsed.exists():
            continue
        source = read_json(layout.registry_entry(document_id))
        parser_version = read_json(parsed).get("parser_version", "")
        rows.append(
            (document_id, source["source_sha256"], parser_version, CHUNKER_VERSION, sha256_hex(passages.read_bytes()))
        )
    return sorted(rows)


def compute_signature(layout: StateLayout) -> str:
    """SHA-256 over the sorted document rows and each overlay's canonical digest."""
    digest = hashlib.sha256()
    for row in signature_rows(layout):
        digest.update("\x1f".join(row).encode() + b"\x1e")
    for path in layout.overlay_files:
        name = path.name
        overlay = _canonical_json_digest(path) if path.exists() else "absent"
        digest.update(f"overlay\x1f{name}\x1f{overlay}\x1e".encode())
    return digest.hexdigest()[:SIGNATURE_LENGTH]


def recorded_signature(layout: StateLayout) -> str | None:
    """The signature the last `corpus_signature` materialisation recorded, if any."""
    if not layout.signature_file.exists():
        return None
    return read_json(layout.signature_file).get("signature")
