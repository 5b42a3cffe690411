"""Citation verification without a language model (DESIGN §5).

A quote is `verified` when it is a raw substring of the canonical text, `verified_normalised`
when it matches after corpus.normalise, else `not_found` with the closest window of the document
by word-level alignment. A quote with an ellipsis is checked as ordered segments. Normalised
documents are cached (LRU, bounded in characters) so a warm check costs a few milliseconds.

The closest-passage search has a bounded cost whatever the input: candidate windows are placed
by the quote's rarest words, ranked by the words they share with the quote (an upper bound of
the alignment score, so the ranking prunes without changing the answer), and only those are
aligned; one wall-clock budget per call (a batch shares it) stops the search, and a quote it
could not finish is `not_found` with the reason "closest search stopped at budget".
"""

from __future__ import annotations

import re
import string
import threading
import time
from array import array
from collections import Counter, OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import cached_property
from itertools import accumulate
from typing import Any, Literal

from pydantic import BaseModel

from corpus.ids import InvalidIdError, validate_chunk_id, validate_document_id
from corpus.normalise import canonical_end, normalise_with_map
from corpus.reader import CorpusReader
from serving.cancel import cancelled as call_cancelled

MIN_QUOTE_CHARS = 12
MAX_QUOTE_CHARS = 5_000          # longest quote accepted, in a call or an evidence session
MAX_BATCH = 50                   # quotes in one verify_citations call
MAX_BATCH_BYTES = 1_000_000      # UTF-8 bytes of the quotes of one call (50 x 5,000 x up to 4)
CLOSEST_BUDGET_S = 0.75          # wall time of matching beyond raw per call (a batch shares it): 2 s margin
BUDGET_REASON = "closest search stopped at budget"
MAX_SEED_REPEATS = 8             # occurrences of a seed word in the quote used to place windows
MIN_SEGMENT_WORDS = 3            # each part around an ellipsis must say something on its own
MIN_CLOSEST_SIMILARITY = 0.3     # below this the "closest" window is noise, not a near miss
MAX_SEEDS = 4                    # rarest quote words used to place candidate windows
MAX_SEED_HITS = 64               # occurrences followed per seed word
CACHE_CHARS = 8_000_000          # normalised documents kept, in canonical characters (~10-40 B each)
_ELLIPSIS_RE = re.compile(r"\s*\[?(?:…|\.\s?\.\s?\.)\]?\s*")
_INNER_HYPHEN_RE = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")
_PUNCT = string.punctuation + "“”‘’«»…"


class Closest(BaseModel):
    offsets: tuple[int, int]           # canonical [start, end) of the closest window
    similarity: float                  # difflib ratio over words, 3 decimals
    word_edits: int                    # one per changed, missing or extra word
    differing_words: list[dict]        # [{"quote": "…", "document": "…"}]
    chunk_id: str | None


class CitationResult(BaseModel):
    status: Literal["verified", "verified_normalised", "not_found"]
    document_id: str
    quote: str
    offsets: list[tuple[int, int]]     # canonical ranges: one, or one per ellipsis segment
    occurrences: int
    chunk_id: str | None
    reason: str | None
    closest: Closest | None


@dataclass
class _Doc:
    """A document's canonical text with its normalisation, and word tables built on demand."""

    text: str
    norm: str
    origin: array

    @cached_property
    def words(self) -> list[str]:
        return self.norm.split(" ") if self.norm else []

    @cached_property
    def keys(self) -> list[str]:
        return [_key(w) for w in self.words]

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
            parts.append(self.norm[pos:m.start()])
            origin.extend(self.origin[pos:m.start()])
            pos = m.end()
        parts.append(self.norm[pos:])
        origin.extend(self.origin[pos:])
        return "".join(parts), origin

    def canonical(self, start: int, end: int, origin: array | None = None) -> tuple[int, int]:
        """Canonical range of the normalised range [start, end)."""
        origin = self.origin if origin is None else origin
        return origin[start], canonical_end(self.text, origin, end - 1)


class OverBudget(Exception):
    """The call's closest-search budget is spent."""


class Budget:
    """Wall-clock budget of the closest-passage search in one call; `spend` before each alignment.
    It also stops the work once the client has given up on the call (`cancelled`, by default the
    server's per-call flag); `stopped` says which ended it."""

    def __init__(self, seconds: float = CLOSEST_BUDGET_S, cancelled=None) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self.cancelled = cancelled or call_cancelled
        self.stopped: Literal["deadline", "cancelled"] | None = None

    def spend(self) -> None:
        if self.cancelled():
            self.stopped = "cancelled"
            raise OverBudget
        if time.monotonic() > self.deadline:
            self.stopped = "deadline"
            raise OverBudget


class _Matcher(SequenceMatcher):
    """difflib's matcher with the budget checked at every longest-match search (the recursion of
    one alignment can be long on a repetitive quote)."""

    def __init__(self, budget: Budget) -> None:
        super().__init__(None, autojunk=False)
        self.budget = budget

    def find_longest_match(self, *args):
        self.budget.spend()
        return super().find_longest_match(*args)


def _key(word: str) -> str:
    return word.strip(_PUNCT) or word


@dataclass
class _Cache:
    """LRU of normalised documents, bounded by their total length."""

    budget: int = CACHE_CHARS
    items: OrderedDict = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, document_id: str, text: str) -> _Doc:
        key = (document_id, len(text), hash(text))  # a re-parsed document is a new entry
        with self.lock:
            doc = self.items.get(key)
            if doc is not None:
                self.items.move_to_end(key)
                return doc
        norm, origin = normalise_with_map(text)
        doc = _Doc(text, norm, array("i", origin))
        with self.lock:
            self.items[key] = doc
            while len(self.items) > 1 and sum(len(d.text) for d in self.items.values()) > self.budget:
                self.items.popitem(last=False)
        return doc


_CACHE = _Cache()


def _result(document_id: str, quote: str, status: str = "not_found", **kw: Any) -> CitationResult:
    fields = {"offsets": [], "occurrences": 0, "chunk_id": None, "reason": None, "closest": None}
    return CitationResult(status=status, document_id=document_id, quote=quote, **{**fields, **kw})


def _covering_chunk(reader: CorpusReader, document_id: str, start: int, end: int,
                    preferred: str | None) -> str | None:
    """The passage whose canonical ranges overlap [start, end) the most (the hint wins ties)."""
    best, best_overlap = None, 0
    for passage in reader.by_document.get(document_id, []):
        overlap = sum(max(0, min(e, end) - max(s, start)) for s, e in passage.ranges)
        if overlap > best_overlap or (overlap and overlap == best_overlap and passage.chunk_id == preferred):
            best, best_overlap = passage.chunk_id, overlap
    return best


def _hint_ranges(reader: CorpusReader, document_id: str, chunk_id: str | None) -> list[tuple[int, int]]:
    passage = reader.passages.get(chunk_id) if chunk_id else None
    return list(passage.ranges) if passage and passage.document_id == document_id else []


def _pick(hits: list[tuple[int, int]], hint: list[tuple[int, int]]) -> tuple[int, int]:
    """First occurrence inside the hinted passage, else the first occurrence."""
    return next((h for h in hits if any(s <= h[0] and h[1] <= e for s, e in hint)), hits[0])


def _find_all(haystack: str, needle: str) -> list[int]:
    hits, i = [], haystack.find(needle)
    while i >= 0:
        hits.append(i)
        i = haystack.find(needle, i + len(needle))
    return hits


def _match_whole(doc: _Doc, quote: str) -> tuple[str, list[tuple[int, int]]] | None:
    hits = _find_all(doc.text, quote)
    if hits:
        return "verified", [(h, h + len(quote)) for h in hits]
    qn = normalise_with_map(quote)[0]
    hits = _find_all(doc.norm, qn) if qn else []
    if hits:
        return "verified_normalised", [doc.canonical(h, h + len(qn)) for h in hits]
    bare = _INNER_HYPHEN_RE.sub("", qn)  # hyphenation differs: a compound split at a line end
    text, origin = doc.dehyphenated
    hits = _find_all(text, bare) if bare else []
    if hits:
        return "verified_normalised", [doc.canonical(h, h + len(bare), origin) for h in hits]
    return None


def _match_segments(doc: _Doc, segments: list[str]) -> tuple[str, list[tuple[int, int]]] | int:
    """Ordered normalised match of all segments, tightened to the last feasible placement;
    returns the index of the first segment that cannot be placed on failure."""
    normed = [normalise_with_map(s)[0] for s in segments]
    starts, pos = [], 0
    for k, seg in enumerate(normed):
        i = doc.norm.find(seg, pos)
        if i < 0:
            return k
        starts.append(i)
        pos = i + len(seg)
    for k in range(len(normed) - 2, -1, -1):  # pull earlier segments towards the later ones
        starts[k] = doc.norm.rfind(normed[k], starts[k], starts[k + 1])
    ranges = [doc.canonical(i, i + len(seg)) for i, seg in zip(starts, normed)]
    raw = all(doc.text[s:e] == seg for (s, e), seg in zip(ranges, segments))
    return ("verified" if raw else "verified_normalised"), ranges


def _closest(doc: _Doc, quote: str, budget: Budget,
             ) -> tuple[int, int, float, list[tuple[str, int, int, int, int]]] | None:
    """Best window (word start, word length) by word alignment, with its opcodes."""
    qn = normalise_with_map(quote)[0]
    qkeys = [_key(w) for w in qn.split(" ")] if qn else []
    n, total = len(qkeys), len(doc.keys)
    if n < 2 or total == 0:
        return None
    present = sorted({k for k in qkeys if k in doc.positions}, key=lambda k: len(doc.positions[k]))
    starts: set[int] = set()
    for k in present[:MAX_SEEDS]:
        for i in [i for i, q in enumerate(qkeys) if q == k][:MAX_SEED_REPEATS]:
            starts.update(max(0, min(j - i, total - n)) for j in doc.positions[k][:MAX_SEED_HITS])
    if not starts:
        return None
    matcher = _Matcher(budget)
    matcher.set_seq2(qkeys)
    wanted = Counter(qkeys)
    shared = {}
    for s in starts:  # words a window shares with the quote bound the words it can align
        budget.spend()
        window = Counter(doc.keys[s:s + n])
        shared[s] = sum(min(c, wanted[k]) for k, c in window.items() if k in wanted)
    best_matches, start = -1, 0
    for s in sorted(starts, key=lambda s: (-shared[s], s)):
        if shared[s] < best_matches:
            break  # no later window can align more words; ties go to the earliest start
        budget.spend()
        matcher.set_seq1(doc.keys[s:s + n])
        matches = sum(block.size for block in matcher.get_matching_blocks())
        if matches > best_matches or (matches == best_matches and s < start):
            best_matches, start = matches, s
    best: tuple = ()
    for shift in range(-2, 3):  # absorb inserted or dropped words around the seed
        s = start + shift
        for size in sorted({min(n + d, total - s) for d in range(-2, 3)}):
            if s >= 0 and size >= 1:
                budget.spend()
                matcher.set_seq1(doc.keys[s:s + size])
                ops = matcher.get_opcodes()
                matches = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")
                edits = sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")
                # most matched words, then fewest edits, then closest to the seed placement
                key = (matches, -edits, -abs(size - n) - abs(shift))
                if not best or key > best[0]:
                    best = (key, s, size, matcher.ratio(), ops)
    _, start, length, ratio, ops = best
    return start, length, ratio, ops


def _closest_model(doc: _Doc, reader: CorpusReader, document_id: str, quote: str,
                   hint: str | None, budget: Budget) -> Closest | None:
    found = _closest(doc, quote, budget)
    if found is None or found[2] < MIN_CLOSEST_SIMILARITY:
        return None
    start, length, ratio, opcodes = found
    qn, qmap = normalise_with_map(quote)
    qwords = qn.split(" ")
    qstarts = list(accumulate((len(w) + 1 for w in qwords[:-1]), initial=0))
    dstarts = doc.starts

    def raw_quote(i1: int, i2: int) -> str:
        if i1 == i2:
            return ""
        return quote[qmap[qstarts[i1]]:canonical_end(quote, qmap, qstarts[i2 - 1] + len(qwords[i2 - 1]) - 1)]

    def raw_doc(j1: int, j2: int) -> str:
        if j1 == j2:
            return ""
        s, e = doc.canonical(dstarts[j1], dstarts[j2 - 1] + len(doc.words[j2 - 1]))
        return doc.text[s:e]

    edits, differing = 0, []
    for tag, j1, j2, i1, i2 in opcodes:  # seq1 = document window, seq2 = quote
        if tag == "equal":
            continue
        edits += max(i2 - i1, j2 - j1)
        differing.append({"quote": raw_quote(i1, i2), "document": raw_doc(start + j1, start + j2)})
    last = start + length - 1
    s, e = doc.canonical(dstarts[start], dstarts[last] + len(doc.words[last]))
    return Closest(offsets=(s, e), similarity=round(ratio, 3), word_edits=edits,
                   differing_words=differing, chunk_id=_covering_chunk(reader, document_id, s, e, hint))


def _verify(reader: CorpusReader, doc: _Doc, document_id: str, quote: str, chunk_id: str | None,
            budget: Budget) -> CitationResult:
    """The raw match always runs (a substring search); normalised matching and the closest search
    only while the call's budget lasts."""
    hits = _find_all(doc.text, quote.strip())
    if not hits:
        try:
            budget.spend()
            return _verify_normalised(reader, doc, document_id, quote, chunk_id, budget)
        except OverBudget:
            return _result(document_id, quote, reason=(
                f"not a raw substring; normalised match not tried: {BUDGET_REASON} "
                f"({budget.seconds:g} s per call); check fewer or shorter quotes per call"))
    s, e = _pick([(h, h + len(quote.strip())) for h in hits], _hint_ranges(reader, document_id, chunk_id))
    return _result(document_id, quote, "verified", offsets=[(s, e)], occurrences=len(hits),
                   chunk_id=_covering_chunk(reader, document_id, s, e, chunk_id))


def _verify_normalised(reader: CorpusReader, doc: _Doc, document_id: str, quote: str,
                       chunk_id: str | None, budget: Budget) -> CitationResult:
    text = quote.strip()
    matched = _match_whole(doc, text)
    segments = [s.strip() for s in _ELLIPSIS_RE.split(text) if s.strip()]
    failed_segment = None
    if matched is None and len(segments) > 1:
        short = [s for s in segments if len(s.split()) < MIN_SEGMENT_WORDS]
        if short:
            return _result(document_id, quote, reason=(
                f"each part around an ellipsis needs at least {MIN_SEGMENT_WORDS} words; too short: {short[0]!r}"))
        placed = _match_segments(doc, segments)
        if isinstance(placed, int):
            failed_segment = placed
        else:
            status, ranges = placed
            return _result(document_id, quote, status, offsets=ranges, occurrences=1,
                           chunk_id=_covering_chunk(reader, document_id, ranges[0][0], ranges[-1][1], chunk_id))
    if matched is not None:
        status, hits = matched
        s, e = _pick(hits, _hint_ranges(reader, document_id, chunk_id))
        return _result(document_id, quote, status, offsets=[(s, e)], occurrences=len(hits),
                       chunk_id=_covering_chunk(reader, document_id, s, e, chunk_id))
    probe = segments[failed_segment] if failed_segment is not None else text
    where = (f"ellipsis segment {failed_segment + 1} of {len(segments)} not found in order"
             if failed_segment is not None else "quote not found in the document")
    try:
        budget.spend()
        closest = _closest_model(doc, reader, document_id, probe, chunk_id, budget)
    except OverBudget:
        return _result(document_id, quote, reason=(
            f"{where}; {BUDGET_REASON} ({budget.seconds:g} s per call): no closest passage given"))
    if closest is None:
        reason = f"{where}; no similar passage"
    elif closest.word_edits == 0:
        reason = f"{where}; the closest passage differs only in punctuation or symbols"
    else:
        reason = f"{where}; the closest passage differs by {closest.word_edits} word(s)"
    return _result(document_id, quote, reason=reason, closest=closest)


def _refusal(document_id: object, quote: object, chunk_id: object) -> str | None:
    """Why a request cannot be checked at all (None when it can)."""
    try:
        validate_document_id(document_id)
        if chunk_id is not None:
            validate_chunk_id(chunk_id)
    except InvalidIdError as exc:
        return str(exc)
    if not isinstance(quote, str):
        return "quote must be a string"
    if len(quote.strip()) < MIN_QUOTE_CHARS:
        return f"quote shorter than {MIN_QUOTE_CHARS} characters: too short to prove anything"
    if len(quote) > MAX_QUOTE_CHARS:
        return f"quote longer than {MAX_QUOTE_CHARS} characters: quote a shorter passage"
    return None


def _load(reader: CorpusReader, document_id: str) -> _Doc | str:
    if document_id not in reader.documents:
        return f"unknown document_id {document_id!r}: not in the served corpus"
    try:
        return _CACHE.get(document_id, reader.canonical_text(document_id))
    except OSError as exc:
        return f"canonical text of {document_id} unreadable: {exc.__class__.__name__}"


def verify_quote(reader: CorpusReader, document_id: str, quote: str, chunk_id: str | None = None,
                 budget: Budget | None = None) -> CitationResult:
    """Check one quote against a document's canonical text."""
    item = {"document_id": document_id, "quote": quote, "chunk_id": chunk_id}
    return verify_batch(reader, [item], budget)[0]


def verify_batch(reader: CorpusReader, items: list[dict], budget: Budget | None = None) -> list[CitationResult]:
    """Check many quotes, in order; each document is read and normalised once. The closest-passage
    searches of all the quotes share one budget (a fresh CLOSEST_BUDGET_S one by default)."""
    budget = budget or Budget()
    docs: dict[str, _Doc | str] = {}
    results = []
    for item in items:
        item = item.model_dump() if isinstance(item, BaseModel) else item
        if not isinstance(item, Mapping):
            results.append(_result("", "", reason="each item must be an object {document_id, quote, chunk_id?}"))
            continue
        document_id, quote, chunk_id = item.get("document_id"), item.get("quote"), item.get("chunk_id")
        refusal = _refusal(document_id, quote, chunk_id)
        if refusal:
            results.append(_result(str(document_id or ""), str(quote or ""), reason=refusal))
            continue
        if document_id not in docs:
            docs[document_id] = _load(reader, document_id)
        doc = docs[document_id]
        if isinstance(doc, str):
            results.append(_result(document_id, quote, reason=doc))
        else:
            results.append(_verify(reader, doc, document_id, quote, chunk_id, budget))
    return results
