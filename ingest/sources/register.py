"""Registration: a source file is validated, copied under its content id, and recorded.

The registry entry is the commit point: it is written (atomically) only after the source bytes
are safely in `sources/`. A rejected file is set aside in `quarantine/` with its reason.
"""

import datetime as dt
import shutil
from dataclasses import dataclass
from pathlib import Path

from corpus.ids import document_id_for_bytes, sha256_hex
from corpus.models import SourceRecord
from corpus.state.layout import StateLayout, atomic_write_bytes, atomic_write_json, read_json
from ingest.parsing.validate import RejectedSource, check_source
from ingest.sources.library import manifest_key_by_sha256


@dataclass(frozen=True)
class Registration:
    name: str
    document_id: str | None = None
    rejected: str | None = None
    new: bool = False
    warnings: tuple[str, ...] = ()  # what validation found wrong with an accepted file


def source_path(layout: StateLayout, record: SourceRecord) -> Path:
    return layout.source_file(record.document_id, record.format)


def register_file(
    layout: StateLayout,
    path: Path,
    library_file: str | None = None,
    name: str | None = None,
    declared: dict[str, str] | None = None,
) -> Registration:
    """Validate and register one file (`path`: the resolved path read; `name`: the name the user
    gave it, default the path's own; `declared`: what its folder's manifest says of it); never
    raises for bad input (it is quarantined instead)."""
    name = name or path.name
    try:
        checked = check_source(path)
    except RejectedSource as exc:
        rejected = f"{name}: {exc.reason}"
        quarantine(layout, path, rejected, name=name)
        return Registration(name, rejected=rejected)
    data = path.read_bytes()
    library_file = library_file or manifest_key_by_sha256().get(sha256_hex(data))
    return register_bytes(layout, data, checked.format, name, library_file, checked.warnings, declared)


def register_bytes(
    layout: StateLayout,
    data: bytes,
    fmt: str,
    name: str,
    library_file: str | None = None,
    warnings: tuple[str, ...] = (),
    declared: dict[str, str] | None = None,
) -> Registration:
    """Record validated source bytes under their content id: the source first, then its registry
    entry (the commit point), which keeps validation's `warnings`. Bytes already registered are
    left as they are."""
    document_id = document_id_for_bytes(data)
    entry = layout.registry_entry(document_id)
    if entry.exists():
        return Registration(name, document_id=document_id, warnings=warnings)
    record = SourceRecord(
        document_id=document_id,
        format=fmt,
        source_sha256=sha256_hex(data),
        bytes=len(data),
        original_name=name,
        library_file=library_file,
        declared=declared or None,
        registered_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        warnings=list(warnings),
    )
    atomic_write_bytes(source_path(layout, record), data)
    atomic_write_json(entry, record.model_dump(mode="json"))
    return Registration(name, document_id=document_id, new=True, warnings=warnings)


def quarantine(layout: StateLayout, path: Path, reason: str, name: str | None = None, copy: bool = True) -> Path:
    """Copy a rejected file aside (as `name`, default its own) with a `.reason.json` beside it
    (`copy=False`: the reason only)."""
    name = name or path.name
    target = layout.quarantine / name
    if copy and path.exists() and path.is_file():
        shutil.copyfile(path, target)
    atomic_write_json(
        layout.quarantine / f"{name}.reason.json",
        {"file": name, "reason": reason, "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")},
    )
    return target


def load_source(layout: StateLayout, document_id: str) -> tuple[SourceRecord, Path]:
    record = SourceRecord(**read_json(layout.registry_entry(document_id)))
    return record, source_path(layout, record)
