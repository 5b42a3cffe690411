"""The kinds of value a session entry holds (docs/DESIGN.md §7), each one a tool accepts.

`scope` (year range, authors, document ids; read by search_documents and timeline) and `evidence`
(quotes, each with the claim it supports if given; read by verify_citations, and held to its rules:
a quote too short to prove anything is refused when stored, not at verification). A reading list
of chunk ids, which no tool would read, is not a kind.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from corpus.ids import validate_chunk_id, validate_document_id
from serving.citation.verify import MAX_QUOTE_CHARS, MAX_SUPPORTS_CHARS, MIN_QUOTE_CHARS, quote_refusal

MAX_LIST_LENGTH = 500  # ids, authors or evidence items in one entry

Kind = Literal["scope", "evidence"]
# What a valid session_put looks like, quoted in every refusal of a value.
VALID_CALLS = {
    "scope": (
        'session_put(name="recent", kind="scope", provenance="derived_from_question", '
        'value={"year_min": 2015, "authors": ["Pav"]})'
    ),
    "evidence": (
        'session_put(name="answer-1", kind="evidence", provenance="served", value={"items": '
        f'[{{"document_id": "doc-…", "quote": "at least {MIN_QUOTE_CHARS} characters copied from '
        'a passage", "chunk_id": "chunk-… (optional)", "supports": "the claim it backs '
        '(optional)"}]})'
    ),
}


# The kinds' fields carry no description: they are the filters and quote items that search_documents
# and verify_citations describe where they take them (session_put's `value` says so; tools/list
# stays lean).
class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)  # "5" is not a year


# The value of a `scope` entry: filters as stored, before a call's own arguments win (serving.toolkit.filters
# turns them into the engine's serving.retrieval.scope.Scope). No docstring: it would become the published
# schema's description.
class StoredScope(_Strict):
    # The published schema keeps the kind's name as its title (only the $defs key is the class name).
    model_config = ConfigDict(title="Scope")

    year_min: int | None = Field(None, ge=1900, le=2099)
    year_max: int | None = Field(None, ge=1900, le=2099)
    authors: list[str] = Field(
        default_factory=list,
        max_length=MAX_LIST_LENGTH,
    )
    document_ids: list[str] = Field(
        default_factory=list,
        max_length=MAX_LIST_LENGTH,
    )

    @field_validator("authors")
    @classmethod
    def _authors(cls, value: list[str]) -> list[str]:
        cleaned = [" ".join(a.split()) for a in value]
        if any(not a or len(a) > 200 for a in cleaned):
            raise ValueError("each author must be a non-empty name of at most 200 characters")
        return cleaned

    @field_validator("document_ids")
    @classmethod
    def _documents(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(validate_document_id(v) for v in value))

    @model_validator(mode="after")
    def _coherent(self) -> StoredScope:
        if self.year_min is not None and self.year_max is not None and self.year_min > self.year_max:
            raise ValueError(f"year_min {self.year_min} is after year_max {self.year_max}")
        if self.year_min is None and self.year_max is None and not self.authors and not self.document_ids:
            raise ValueError("a scope needs at least one of year_min, year_max, authors, document_ids")
        return self


class EvidenceItem(_Strict):
    document_id: str
    quote: str = Field(
        min_length=MIN_QUOTE_CHARS,
        max_length=MAX_QUOTE_CHARS,
    )
    chunk_id: str | None = None
    supports: str | None = Field(
        None,
        max_length=MAX_SUPPORTS_CHARS,
    )

    @field_validator("quote")
    @classmethod
    def _quote(cls, value: str) -> str:
        refusal = quote_refusal(value)
        if refusal:
            raise ValueError(refusal[1])
        return value

    @field_validator("document_id")
    @classmethod
    def _document(cls, value: str) -> str:
        return validate_document_id(value)

    @field_validator("chunk_id")
    @classmethod
    def _chunk(cls, value: str | None) -> str | None:
        return None if value is None else validate_chunk_id(value)


class Evidence(_Strict):
    items: list[EvidenceItem] = Field(
        min_length=1,
        max_length=MAX_LIST_LENGTH,
    )


KIND_MODELS: dict[str, type[StoredScope] | type[Evidence]] = {"scope": StoredScope, "evidence": Evidence}


def value_size(value: StoredScope | Evidence) -> int:
    """Ids, authors and year bounds, or quotes, held."""
    if isinstance(value, StoredScope):
        return (
            len(value.authors) + len(value.document_ids) + (value.year_min is not None) + (value.year_max is not None)
        )
    return len(value.items)
