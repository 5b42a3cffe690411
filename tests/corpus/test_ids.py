"""One validator for ids: the whole value must match, in code and in the published schemas."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from corpus.ids import ChunkId, DocumentId, InvalidIdError, validate_chunk_id, validate_document_id

DOC, CHUNK = "doc-0123456789abcdef", "chunk-0123456789abcdef"
SUFFIXES = ["\n", "\r\n", " ", "\x00", "/..", "0"]


class _Model(BaseModel):
    document_id: DocumentId
    chunk_id: ChunkId


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_trailing_character_is_refused_everywhere(suffix):
    with pytest.raises(InvalidIdError):
        validate_document_id(DOC + suffix)
    with pytest.raises(InvalidIdError):
        validate_chunk_id(CHUNK + suffix)
    with pytest.raises(ValidationError):
        _Model(document_id=DOC + suffix, chunk_id=CHUNK)
    with pytest.raises(ValidationError):
        _Model(document_id=DOC, chunk_id=CHUNK + suffix)
    assert _Model(document_id=DOC, chunk_id=CHUNK).document_id == DOC


def test_the_schema_publishes_the_anchored_pattern():
    schema = _Model.model_json_schema()["properties"]
    assert schema["document_id"]["pattern"] == "^doc-[0-9a-f]{16}$"
    assert schema["chunk_id"]["pattern"] == "^chunk-[0-9a-f]{16}$"


@given(st.text(max_size=40))
def test_only_the_exact_shape_passes(value):
    shaped = value.startswith("doc-") and len(value) == 20 and all(c in "0123456789abcdef" for c in value[4:])
    try:
        validate_document_id(value)
        accepted = True
    except InvalidIdError:
        accepted = False
    assert accepted == shaped
