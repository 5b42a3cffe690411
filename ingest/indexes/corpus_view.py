"""What corpus-level index assets read: materialised documents with their display fields."""

from __future__ import annotations

from dataclasses import dataclass

from corpus.models import DocumentMetadata, Passage
from corpus.state.layout import StateLayout, read_json
from ingest.passages.integrity import load_passages


@dataclass
class IndexedDocument:
    document_id: str
    title: str | None
    authors: list[str]
    year: int | None
    passages: list[Passage]


def indexed_documents(layout: StateLayout) -> list[IndexedDocument]:
    """Every registered document whose passages and metadata exist, titles from the overlay."""
    titles = read_json(layout.titles_file) if layout.titles_file.exists() else {}
    documents = []
    for document_id in layout.registered_document_ids():
        if not (layout.passages(document_id).exists() and layout.metadata(document_id).exists()):
            continue
        meta = DocumentMetadata(**read_json(layout.metadata(document_id)))
        title = titles.get(document_id) or meta.title_text
        documents.append(
            IndexedDocument(
                document_id, title, meta.author_names, meta.publication_year, load_passages(layout, document_id)
            )
        )
    return documents
