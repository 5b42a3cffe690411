"""Read side of the corpus state: documents, metadata, passages and canonical text.

Used by the server and by evaluation. Reads files only; never writes. Documents are held in
memory; passages too, unless the state is large and has a passage store for its signature
(corpus.indexes.passage_store): then `passages` and `by_document` are read-only mappings that look them
up on disk, so no caller changes, and each document's parsed blocks are read on first use.
"""

from __future__ import annotations

import gc
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from corpus.ids import validate_chunk_id, validate_document_id
from corpus.indexes.passage_store import LARGE_STATE_PASSAGES, PassageStore, StoredByDocument, StoredPassages
from corpus.models import DocumentMetadata, ParsedDocument, Passage, SourceRecord
from corpus.state.layout import StateLayout, read_json, read_text_exact
from corpus.state.signature import recorded_signature
from corpus.vectors.read_ahead import read_ahead_in_background


class DocumentEntry:
    """One served document. `parsed` may be given as the path of its parsed.json, read on first
    use: a large state is served without reading every document's blocks at start (only the
    canonical text's sha256 is ever needed, for the passages a tool returns)."""

    def __init__(self, source: SourceRecord, parsed: ParsedDocument | Path, metadata: DocumentMetadata):
        self.source = source
        self.metadata = metadata
        self._parsed = parsed

    @property
    def parsed(self) -> ParsedDocument:
        if isinstance(self._parsed, Path):  # two threads may both read it: the same value wins
            self._parsed = ParsedDocument.model_validate_json(self._parsed.read_bytes())
        return self._parsed

    @property
    def document_id(self) -> str:
        return self.source.document_id

    @property
    def title(self) -> str | None:
        return self.metadata.title.value  # type: ignore[return-value]

    @property
    def authors(self) -> list[str]:
        return self.metadata.author_names

    @property
    def year(self) -> int | None:
        return self.metadata.publication_year


@dataclass
class CorpusReader:
    """Everything materialised under one state directory, loaded once."""

    layout: StateLayout
    documents: dict[str, DocumentEntry] = field(default_factory=dict)
    passages: Mapping[str, Passage] = field(default_factory=dict)
    by_document: Mapping[str, list[Passage]] = field(default_factory=dict)
    titles_overlay: dict[str, str] = field(default_factory=dict)
    near_duplicates: dict[str, str] = field(default_factory=dict)  # chunk_id -> kept twin

    @classmethod
    def open(cls, layout: StateLayout) -> CorpusReader:
        # Tens of thousands of small objects: the cyclic GC would rescan them on every allocation burst.
        gc.disable()
        try:
            return cls._load(layout)
        finally:
            gc.enable()

    @classmethod
    def _load(cls, layout: StateLayout) -> CorpusReader:
        reader = cls(layout)
        store = PassageStore.for_state(layout, recorded_signature(layout))
        if store is not None and store.count < LARGE_STATE_PASSAGES:
            store.close()
            store = None
        passages: dict[str, Passage] = {}
        by_document: dict[str, list[Passage]] = {}
        if store is not None:
            read_ahead_in_background(store.path)  # passages from memory, not the disk, from the first search
        for document_id in layout.registered_document_ids():
            paths = (layout.parsed_blocks(document_id), layout.metadata(document_id), layout.passages(document_id))
            if not all(p.exists() for p in paths):
                continue  # registered but not (yet) materialised: not part of the served state
            entry = DocumentEntry(
                source=SourceRecord.model_validate_json(layout.registry_entry(document_id).read_bytes()),
                parsed=paths[0] if store is not None else ParsedDocument.model_validate_json(paths[0].read_bytes()),
                metadata=DocumentMetadata.model_validate_json(paths[1].read_bytes()),
            )
            reader.documents[document_id] = entry
            if store is not None:
                continue
            rows = read_passages(paths[2])
            rows.sort(key=lambda p: p.ordinal)
            by_document[document_id] = rows
            passages.update((p.chunk_id, p) for p in rows)
        if store is not None:
            reader.passages = StoredPassages(store)
            reader.by_document = StoredByDocument(store, reader.documents)
        else:
            reader.passages, reader.by_document = passages, by_document
        if layout.titles_file.exists():
            reader.titles_overlay = read_json(layout.titles_file)
        if layout.near_duplicates_file.exists():
            reader.near_duplicates = read_json(layout.near_duplicates_file)
        return reader

    def document(self, document_id: str) -> DocumentEntry | None:
        return self.documents.get(validate_document_id(document_id))

    def passage(self, chunk_id: str) -> Passage | None:
        return self.passages.get(validate_chunk_id(chunk_id))

    def title(self, document_id: str) -> str | None:
        """Consolidated title (overlay first, then metadata)."""
        entry = self.documents.get(document_id)
        return self.titles_overlay.get(document_id) or (entry.title if entry else None)

    def canonical_text(self, document_id: str) -> str:
        return _read_canonical(self.layout.canonical_text(validate_document_id(document_id)))


def read_passages(path: Path) -> list[Passage]:
    """The passages file of one document (JSON lines), in stored order; [] when absent."""
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as handle:
        return [Passage.model_validate_json(line) for line in handle if line.strip()]


@lru_cache(maxsize=128)
def _read_canonical(path: Path) -> str:
    return read_text_exact(path)
