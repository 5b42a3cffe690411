"""The on-disk passage store: built by the pipeline, published with the state, and read through the
reader's usual mappings with the same answers as the in-memory reader."""

from __future__ import annotations

from pathlib import Path

import pytest

import corpus.reading.reader as reader_module
from corpus.ids import InvalidIdError
from corpus.indexes.passage_store import PassageStore, StoredByDocument, StoredPassages, store_path, write_passage_store
from corpus.reading.published import open_published
from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout
from corpus.state.signature import recorded_signature


def test_disk_reader_answers_like_the_memory_reader(ingested_home, monkeypatch):
    view = open_published(StateLayout(ingested_home))
    try:
        layout = view.layout
        assert view.generation is not None
        assert store_path(layout, recorded_signature(layout)).exists()  # built and published
        memory = CorpusReader.open(layout)  # the slice is under LARGE_STATE_PASSAGES
        assert isinstance(memory.passages, dict)
        monkeypatch.setattr(reader_module, "LARGE_STATE_PASSAGES", 0)
        disk = CorpusReader.open(layout)
        assert isinstance(disk.passages, StoredPassages) and isinstance(disk.by_document, StoredByDocument)
        assert len(disk.passages) == len(memory.passages) > 0
        assert sorted(disk.passages) == sorted(memory.passages)
        for chunk_id, passage in memory.passages.items():
            assert disk.passage(chunk_id) == passage and chunk_id in disk.passages
        assert set(disk.by_document) == set(memory.by_document)
        for document_id, passages in memory.by_document.items():
            assert disk.by_document[document_id] == passages
        # documents: metadata at start, parsed blocks only when first asked for
        assert set(disk.documents) == set(memory.documents)
        for document_id, entry in memory.documents.items():
            lazy = disk.documents[document_id]
            assert (lazy.source, lazy.metadata) == (entry.source, entry.metadata)
            assert isinstance(lazy._parsed, Path) and lazy.parsed == entry.parsed
            assert lazy.parsed is lazy.parsed  # read once
        unknown = "chunk-" + "0" * 16
        assert disk.passage(unknown) is None and unknown not in disk.passages
        assert disk.passages.get(unknown, "none") == "none" and disk.by_document.get("doc-" + "0" * 16, []) == []
        with pytest.raises(KeyError):
            disk.passages[unknown]
        with pytest.raises(InvalidIdError):
            disk.passage("not-an-id")
    finally:
        view.close()


def test_a_store_of_another_signature_is_not_used(tmp_path, ingested_home):
    layout, view = StateLayout(tmp_path), open_published(StateLayout(ingested_home))
    first = next(iter(CorpusReader.open(view.layout).by_document.values()))
    view.close()
    assert write_passage_store(store_path(layout, "aaaa"), "aaaa", first) == len(first)
    assert PassageStore.for_state(layout, "bbbb") is None and PassageStore.for_state(layout, None) is None
    store = PassageStore.for_state(layout, "aaaa")
    assert store.of_document(first[0].document_id) == sorted(first, key=lambda p: p.ordinal)
