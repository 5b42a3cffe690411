"""Exact matching for citation verification: a document's canonical text with its normalisation
(corpus.text.normalise) and word tables, an LRU of them bounded in characters, and the raw, normalised,
dehyphenated matches (ellipsis quotes: serving.citation.segments; serving.citation.verify decides
which applies).

A quote is normalised in up to four forms (quote_forms), because a quote has lost the context its
markup had: with a line's leading `##` kept (code lines copied from a fenced block, where the
document keeps them as text), as it is; with its pipes read as table markup (a table row copied with
some of its pipes, the row boundaries or none), which a match takes only where each pipe of the
quote falls in a table row of the document. A normalised match that ends inside a run of letters
whose accents it lacks, or starts inside one with accents of its own, is no match ('σ' is not 'σ̂',
nor 'ẑ0' a part of 'σ̂z0')."""

from __future__ import annotations

import re
import string
import threading
import unicodedata
from array import array
from bisect import bisect_right
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate
from typing import Literal

from corpus.text.normalise import canonical_end, canonical_start, normalise_with_map

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
        text, origin = dehyphenate(self.norm, self.origin)
        return text, array("i", origin)

    def canonical(self, start: int, end: int, origin: array | None = None) -> tuple[int, int]:
        """Canonical range of the normalised range [start, end)."""
        origin = self.origin if origin is None else origin
        return canonical_start(self.text, origin, start), canonical_end(self.text, origin, end - 1)


def dehyphenate(norm: str, origin) -> tuple[str, list[int]]:
    """`norm` without hyphens inside words, and `origin` without their entries."""
    parts: list[str] = []
    kept: list[int] = []
    pos = 0
    for m in _INNER_HYPHEN_RE.finditer(norm):
        parts.append(norm[pos : m.start()])
        kept.extend(origin[pos : m.start()])
        pos = m.end()
    parts.append(norm[pos:])
    kept.extend(origin[pos:])
    return "".join(parts), kept


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
    ranges = normalised_hits(doc, quote)
    return ("verified_normalised", ranges) if ranges else None


@dataclass(frozen=True)
class QuoteForm:
    """One normalisation of a quote: its text, its map to the quote, and the quote's pipes it read
    as table markup (a match must put each of them in a table row of the document)."""

    norm: str
    origin: list[int]
    pipes: tuple[int, ...] = ()


def quote_forms(quote: str) -> list[QuoteForm]:
    """The quote with a line's leading `#` kept as text (code copied from a fenced block: it
    matches more of the quote, so it goes first), as it is; then both with its pipes read as
    table markup. Distinct forms only, in that order."""
    modes = [False, True] if "#" in quote else [True]  # headings=False keeps a line's leading '#'
    variants = [(quote, h) for h in modes]
    if "|" in quote:
        bare = quote.replace("|", " ")  # same length: the map still points into the quote
        variants += [(bare, h) for h in modes]
    pipes = [i for i, ch in enumerate(quote) if ch == "|"]
    forms: list[QuoteForm] = []
    for text, headings in variants:
        norm, origin = normalise_with_map(text, headings=headings)
        if norm and all(f.norm != norm for f in forms):
            kept = {at for ch, at in zip(norm, origin) if ch == "|"}
            forms.append(QuoteForm(norm, origin, tuple(p for p in pipes if p not in kept)))
    return forms


def normalised_hits(doc: NormalisedDocument, quote: str) -> list[tuple[int, int]]:
    """Canonical ranges of the quote's normalised matches: the first of its forms (quote_forms)
    that occurs, in the normalised text, else in its dehyphenated text (a compound split at a
    line end reads as one word)."""
    for form in quote_forms(quote):
        for dehyphenated in (False, True):
            text, origin = doc.dehyphenated if dehyphenated else (doc.norm, doc.origin)
            needle, where = dehyphenate(form.norm, form.origin) if dehyphenated else (form.norm, form.origin)
            hits = [
                h
                for h in (find_all(text, needle) if needle else [])
                if _keeps_accents(text, h + len(needle))
                and (not h or not _accented_run_cut(text, h, needle))
                and (not form.pipes or _pipes_in_table(doc, form.pipes, where, h, origin))
            ]
            if hits:
                return [doc.canonical(h, h + len(needle), origin) for h in hits]
    return []


def _keeps_accents(text: str, end: int) -> bool:
    """A match ending inside a run of letters must not leave behind the run's accents (gathered
    after its last letter by the normalisation): 'σ' is not 'σ̂', nor 'σz' 'σ̂z'."""
    while end < len(text) and text[end].isalpha():
        if not text[end].isascii() and _has_mark(text[end]):  # composed with its accent: 'ẑ'
            return False
        end += 1
    return end == len(text) or not unicodedata.combining(text[end])


def _accented_run_cut(text: str, start: int, needle: str) -> bool:
    """Whether a match starts inside a run of letters with accents in its own first run: they may
    belong to the letters before it ('ẑ0' is not a part of 'σ̂z0', whose run reads 'σẑ0')."""
    if not (text[start - 1].isalpha() or unicodedata.combining(text[start - 1])):
        return False
    end = 0
    while end < len(needle) and (needle[end].isalpha() or unicodedata.combining(needle[end])):
        if unicodedata.combining(needle[end]) or (not needle[end].isascii() and _has_mark(needle[end])):
            return True
        end += 1
    return False


def _has_mark(ch: str) -> bool:
    return any(unicodedata.combining(c) for c in unicodedata.normalize("NFD", ch))


def _pipes_in_table(doc: NormalisedDocument, pipes: tuple[int, ...], where: list[int], hit: int, origin) -> bool:
    """Whether the quote's pipes read as markup (their offsets in the quote) all fall in a table row
    of the document (a line starting with '|'): there pipes are markup, elsewhere ('P(A | B)') text."""
    for p in pipes:
        k = min(max(bisect_right(where, p) - 1, 0), len(where) - 1)  # the character at or before it
        at = origin[hit + k]
        line = doc.text[doc.text.rfind("\n", 0, at) + 1 : at + 1]
        if not line.lstrip(" \t").startswith("|"):
            return False
    return True
