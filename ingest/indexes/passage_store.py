"""The passage store (corpus.indexes.passage_store): every served passage in one SQLite file per signature."""

from __future__ import annotations

from corpus.indexes.passage_store import FOLDER, PassageStore, store_path, write_passage_store
from corpus.state.layout import StateLayout
from corpus.state.signature import recorded_signature
from ingest.indexes.corpus_view import indexed_documents


def build_passage_store(layout: StateLayout) -> dict[str, int | str]:
    """Write the store for the recorded signature unless it exists; drop the working state's stores
    of other signatures (a published generation keeps its own by a hard link)."""
    signature = recorded_signature(layout)
    if signature is None:
        raise RuntimeError("no corpus signature recorded: materialise corpus_signature first")
    store = PassageStore.for_state(layout, signature)
    if store is not None:
        count = store.count
        store.close()
        rebuilt = 0
    else:
        count = write_passage_store(
            store_path(layout, signature), signature, (p for d in indexed_documents(layout) for p in d.passages)
        )
        rebuilt = 1
    for path in (layout.served_root / FOLDER).glob("*.sqlite"):
        if path.stem != signature:
            path.unlink(missing_ok=True)
    return {"signature": signature, "passages": count, "rebuilt": rebuilt}


def passage_store_signature(layout: StateLayout) -> str | None:
    """The signature of the store for the recorded signature, None when there is none."""
    store = PassageStore.for_state(layout, recorded_signature(layout))
    if store is None:
        return None
    store.close()
    return store.signature
