"""Identifiers: derived from content, validated before they touch a path or a query."""

from __future__ import annotations

import hashlib
import re
from typing import Annotated

from pydantic import AfterValidator, StringConstraints

# The whole value must match: `re.fullmatch`, never `match` with `$`, which also accepts a final
# newline ("doc-…\n"). The anchored patterns are what JSON Schema publishes (ECMA `$` is the end).
DOCUMENT_ID_RE = re.compile(r"^doc-[0-9a-f]{16}$")
CHUNK_ID_RE = re.compile(r"^chunk-[0-9a-f]{16}$")


class InvalidIdError(ValueError):
    """An identifier that does not have the expected shape."""


def document_id_for_bytes(data: bytes) -> str:
    """`doc-` + first 16 hex of the SHA-256 of the source bytes: same bytes, same id."""
    return "doc-" + hashlib.sha256(data).hexdigest()[:16]


def chunk_id_for(document_id: str, start: int, end: int, chunker_version: str) -> str:
    """`chunk-` + 16 hex of SHA-256(document_id, start, end, chunker version)."""
    key = f"{document_id}\x00{start}\x00{end}\x00{chunker_version}".encode()
    return "chunk-" + hashlib.sha256(key).hexdigest()[:16]


def validate_document_id(value: object) -> str:
    """Return `value` if it is a well-formed document id, else raise InvalidIdError."""
    if not isinstance(value, str) or not DOCUMENT_ID_RE.fullmatch(value):
        raise InvalidIdError(f"malformed document_id {str(value)[:80]!r}: expected 'doc-' + 16 lowercase hex")
    return value


def validate_chunk_id(value: object) -> str:
    """Return `value` if it is a well-formed chunk id, else raise InvalidIdError."""
    if not isinstance(value, str) or not CHUNK_ID_RE.fullmatch(value):
        raise InvalidIdError(f"malformed chunk_id {str(value)[:80]!r}: expected 'chunk-' + 16 lowercase hex")
    return value


# The one validator for ids in pydantic models (tool schemas, session values): the published
# pattern, then the same fullmatch check as every other path.
DocumentId = Annotated[str, StringConstraints(pattern=DOCUMENT_ID_RE.pattern), AfterValidator(validate_document_id)]
ChunkId = Annotated[str, StringConstraints(pattern=CHUNK_ID_RE.pattern), AfterValidator(validate_chunk_id)]


def sha256_hex(data: bytes | str) -> str:
    """Full SHA-256 hex digest of bytes, or of a string encoded as UTF-8."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()
