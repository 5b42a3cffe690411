"""Exact matching for citation verification: a document's canonical text with its normalisation
(corpus.text.normalise) and word tables, an LRU of them bounded in characters, and the raw, normalised,
dehyphenated matches (ellipsis quotes: serving.citation_segments; serving.citation decides
which applies)."""

from __future__ import annotations

import re
import string
import threading
from array import array
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate
from typing import Literal

from corpus.text.normalise import canonical_end, normalise_with_map

CACHE_CHARS = 8_000_000  # normalised documents kept, in canonical characters (~10-40 B each)
ELLIPSIS_RE = re.compile(r"\s*\[?(?:…|\.\s?\.\s?\.)\]?\s*")
_INNER_HYPHEN_RE = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")
_PUNCT = string.punctuation + "“”‘’«»…"


@dataclass
class NormalisedDocument:
    """A document's canonical text with its normalisation, and word tables built on demand."""

    text: str
    norm: str
    origin: array

    @cached_property
    def words(self) -> list[str]:
        return self.norm.split(" ") if self.norm else []

    @cached_property
    def keys(self) -> list[str]:
        return [word_key(w) for w in self.words]

    @cached_property
    def starts(self) -> list[int]:
        return list(accumulate((len(w) + 1 for w in self.words[:-1]), initial=0))

    @cached_property
    def positions(self) -> dict[str, list[int]]:
        table: dict[str, list[int]] = {}
        for i, k in enumerate(self.keys):
            table.setdefault(k, []).append(i)
        return table

    @cached_property
    def dehyphenated(self) -> tuple[str, array]:
        """The normalised text without hyphens inside words, and its map to canonical offsets:
        'mean-variance', 'meanvariance' and 'mean-\\nvariance' all read 'meanvariance' here."""
        parts, origin, pos = [], array("i"), 0
        for m in _INNER_HYPHEN_RE.finditer(self.norm):
            parts.append(self.norm[pos : m.start()])
            origin.extend(self.origin[pos : m.start()])
            pos = m.end()
        parts.append(self.norm[pos:])
        origin.extend(self.origin[pos:])
        return "".join(parts), origin

    def canonical(self, start: int, end: int, origin: array | None = None) -> tuple[int, int]:
        """Canonical range of the normalised range [start, end)."""
        origin = self.origin if origin is None else origin
        return origin[start], canonical_end(self.text, origin, end - 1)


def word_key(word: str) -> str:
    return word.strip(_PUNCT) or word


@dataclass
class DocumentCache:
    """LRU of normalised documents, bounded by their total length."""

    budget: int = CACHE_CHARS
    items: OrderedDict = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, document_id: str, text: str) -> NormalisedDocument:
        key = (document_id, len(text), hash(text))  # a re-parsed document is a new entry
        with self.lock:
            doc = self.items.get(key)
            if doc is not None:
                self.items.move_to_end(key)
                return doc
        norm, origin = normalise_with_map(text)
        doc = NormalisedDocument(text, norm, array("i", origin))
        with self.lock:
            self.items[key] = doc
            while len(self.items) > 1 and sum(len(d.text) for d in self.items.values()) > self.budget:
                self.items.popitem(last=False)
        return doc


DOCUMENTS = DocumentCache()


def find_all(haystack: str, needle: str) -> list[int]:
    hits, i = [], haystack.find(needle)
    while i >= 0:
        hits.append(i)
        i = haystack.find(needle, i + len(needle))
    return hits


MatchStatus = Literal["verified", "verified_normalised"]


def match_whole(doc: NormalisedDocument, quote: str) -> tuple[MatchStatus, list[tuple[int, int]]] | None:
    hits = find_all(doc.text, quote)
    if hits:
        return "verified", [(h, h + len(quote)) for h in hits]
    qn = normalise_with_map(quote)[0]
    hits = find_all(doc.norm, qn) if qn else []
    if hits:
        return "verified_normalised", [doc.canonical(h, h + len(qn)) for h in hits]
    bare = _INNER_HYPHEN_RE.sub("", qn)  # hyphenation differs: a compound split at a line end
    text, origin = doc.dehyphenated
    hits = find_all(text, bare) if bare else []
    if hits:
        return "verified_normalised", [doc.canonical(h, h + len(bare), origin) for h in hits]
    return None
