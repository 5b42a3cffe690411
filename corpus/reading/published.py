"""Published generations: readers open the last published state, never the one being written.

The writer works in the state directory itself. When a refresh leaves that working state coherent,
`publish` snapshots the served artefacts (StateLayout.viewing names them) into a new folder under
published/ and switches published/CURRENT to it with one atomic rename. Files the writer only ever
replaces by rename (registry entries, per-document files, overlays, signature, BM25 builds, promoted
Edge generations) are hard links: a later write makes a new inode, the link keeps the published
bytes, and nothing is copied. The DuckDB files and qdrant-client's local folder may be written in
place by other tools, so they are copied.

A reader resolves CURRENT once (`open_published`) and reads that generation for its whole life, so a
server started in the middle of an ingest serves the last published state. It holds a shared flock
on the generation's readers.lock until it exits (the kernel drops it on kill -9); the writer deletes
an older generation only when it can take that lock exclusively - once no reader holds it - and
renames it to a dot name first, so a reader racing the switch never opens half a generation.

A state without published/ (written before publishing existed, or built by the ingest/ functions
directly, as the serving test fixture and evaluation's scratch states are) is read in place; the
next `quant-rag ingest` publishes it.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from corpus.indexes.passage_store import store_path
from corpus.state.generations import next_generation, point_at, pointed_generation
from corpus.state.layout import StateLayout, atomic_write_json, read_json

MANIFEST = "published.json"
ATTEMPTS = 5  # a reader that raced a switch re-reads the pointer


@dataclass
class PublishedView:
    """What a reader opened: the layout it reads, and the lease that keeps its generation."""

    layout: StateLayout
    generation: str | None  # None: no published generation, the state is read in place
    manifest: dict
    _lease: int | None = None

    def close(self) -> None:
        if self._lease is not None:
            os.close(self._lease)  # releases the shared flock
            self._lease = None


def open_published(layout: StateLayout) -> PublishedView:
    """The current published generation of `layout`, leased for reading; else the state itself."""
    if layout.view is not None:
        return PublishedView(layout, layout.view.name, _manifest(layout.view))
    for _ in range(ATTEMPTS):
        folder = pointed_generation(layout.published)
        if folder is None:
            return PublishedView(layout, None, {})
        view = layout.viewing(folder)
        try:
            fd = os.open(view.readers_lock, os.O_RDONLY)
        except FileNotFoundError:
            continue  # deleted between the pointer and the open: a newer one is current
        fcntl.flock(fd, fcntl.LOCK_SH)  # waits only while the writer is deleting this very one
        try:
            still_there = os.stat(view.readers_lock).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            still_there = False
        if still_there:
            return PublishedView(view, folder.name, _manifest(folder), fd)
        os.close(fd)
    raise RuntimeError(f"could not open a published generation under {layout.published}")


def _manifest(folder: Path) -> dict:
    path = folder / MANIFEST
    return read_json(path) if path.exists() else {}


def _link(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:  # a file system without hard links: a copy is as good, only bigger
        shutil.copy2(source, target)


def _link_tree(source: Path, target: Path) -> None:
    shutil.copytree(
        source,
        target,
        copy_function=lambda s, t: _link(Path(s), Path(t)),
        ignore=shutil.ignore_patterns("*.lock", ".lock"),
    )


def _snapshot(work: StateLayout, view: StateLayout, signature: str) -> None:
    """Every served artefact of the working state `work`, into the (empty) generation `view`."""
    for document_id in work.registered_document_ids():
        _link(work.registry_entry(document_id), view.registry_entry(document_id))
        for path in (
            StateLayout.canonical_text,
            StateLayout.parsed_blocks,
            StateLayout.passages,
            StateLayout.metadata,
            StateLayout.passages_meta,
        ):
            if path(work, document_id).exists():
                _link(path(work, document_id), path(view, document_id))
    for source, target in zip(work.overlay_files, view.overlay_files):
        if source.exists():
            _link(source, target)
    _link(work.signature_file, view.signature_file)
    for source, target in ((work.catalogue, view.catalogue), (work.graph, view.graph)):
        if source.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    if (work.bm25 / signature).exists():
        _link_tree(work.bm25 / signature, view.bm25 / signature)
    if store_path(work, signature).exists():
        _link(store_path(work, signature), store_path(view, signature))
    for tokens in work.token_indexes.glob(f"*-{signature}"):
        _link_tree(tokens, view.token_indexes / tokens.name)
    for collection in sorted((work.vectors / "edge").glob("passages-*")):
        current = pointed_generation(collection)
        if current is not None and current.exists():
            target = view.vectors / "edge" / collection.name
            _link_tree(current, target / current.name)
            point_at(target, target / current.name)
    if (work.vectors / "local").exists():  # qdrant-client's local mode writes its folder in place
        shutil.copytree(
            work.vectors / "local", view.vectors / "local", ignore=shutil.ignore_patterns("*.lock", ".lock")
        )


def publish(work: StateLayout, signature: str) -> Path:
    """Publish the working state (the caller holds the writer lock and has checked it coherent at
    `signature`); delete older generations no reader holds. Returns the new generation."""
    root = work.published
    root.mkdir(parents=True, exist_ok=True)
    for leftover in root.glob(".g*"):  # a publish or deletion killed midway
        shutil.rmtree(leftover, ignore_errors=True)
    final = next_generation(root)
    staging = root / f".{final.name}.staging"
    view = work.viewing(staging)
    _snapshot(work, view, signature)
    view.readers_lock.touch()
    at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    atomic_write_json(
        staging / MANIFEST,
        {
            "generation": final.name,
            "signature": signature,
            "documents": len(work.registered_document_ids()),
            "published_at": at,
        },
    )
    os.replace(staging, final)
    point_at(root, final, signature=signature, published_at=at)
    prune(work)
    return final


def _drop_superseded_vectors(work: StateLayout) -> None:
    """Once a state is published, readers open only published folders, which link the vector
    generation they serve: the writer's superseded generations are nobody's any more."""
    for collection in (work.vectors / "edge").glob("passages-*"):
        current = pointed_generation(collection)
        for folder in collection.glob("g*"):
            if current is not None and folder.is_dir() and folder.name != current.name:
                shutil.rmtree(folder, ignore_errors=True)


def prune(work: StateLayout) -> list[str]:
    """Delete every published generation but the current one that no reader holds (and the
    writer's superseded vector generations)."""
    if pointed_generation(work.published) is not None:
        _drop_superseded_vectors(work)
    current = pointed_generation(work.published)
    removed = []
    for folder in sorted(work.published.glob("g*")):
        if current is not None and folder.name == current.name:
            continue
        lock = work.viewing(folder).readers_lock
        try:
            fd = os.open(lock, os.O_RDONLY)
        except FileNotFoundError:
            fd = None  # half deleted by a killed writer: nobody can hold it
        try:
            if fd is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # a reader still serves it
            doomed = folder.with_name(f".{folder.name}.deleting")
            os.replace(folder, doomed)
            shutil.rmtree(doomed, ignore_errors=True)
            removed.append(folder.name)
        finally:
            if fd is not None:
                os.close(fd)
    return removed
