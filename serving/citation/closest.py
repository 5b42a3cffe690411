"""The closest window of a document to a quote that did not match, at a bounded cost: candidate
windows placed by the quote's rarest words, ranked by the words they share with it (an upper bound
of the alignment score, so the ranking prunes without changing the answer), and only those aligned
word by word; one wall-clock budget per call (a batch shares it) stops the search."""

from __future__ import annotations

import time
from collections import Counter
from difflib import SequenceMatcher
from itertools import accumulate
from typing import Literal

from pydantic import BaseModel, Field

from corpus.reading.reader import CorpusReader
from corpus.text.normalise import canonical_end, canonical_start, normalise_with_map
from serving.citation.cancel import cancelled as call_cancelled
from serving.citation.places import passage_place
from serving.citation.text import NormalisedDocument, word_key

# wall time of matching beyond raw per call (a batch shares it), well inside a client's patience
CLOSEST_BUDGET_S = 0.75
BUDGET_REASON = "closest search stopped at budget"
MAX_SEED_REPEATS = 8  # occurrences of a seed word in the quote used to place windows
MIN_CLOSEST_SIMILARITY = 0.3  # below this the "closest" window is noise, not a near miss
MAX_SEEDS = 4  # rarest quote words used to place candidate windows
MAX_SEED_HITS = 64  # occurrences followed per seed word


class Closest(BaseModel):
    """The document's nearest window to a quote that did not match, and where to read it."""

    text: str = Field(description="The window's words as the document holds them (quote these).")
    chunk_id: str | None = Field(
        description=("Passage where the window starts: get_passage(chunk_id, offset) reads from its start.")
    )
    offset: int | None = Field(
        description=(
            "get_passage's `offset` of the window in that passage (passage-relative). Inside a "
            "formula or table row, get_passage reads from the safe position before it."
        )
    )
    continues_in: str | None = Field(
        description=("chunk_id of the next passage when the window runs past the end of chunk_id's passage.")
    )
    document_offsets: tuple[int, int] = Field(
        description=("Canonical [start, end) of the window in the whole document; not a get_passage offset.")
    )
    similarity: float = Field(description="difflib ratio over words, 0 to 1, 3 decimals.")
    word_edits: int = Field(description="One per changed, missing or extra word.")
    differing_words: list[dict] = Field(description='[{"quote": "…", "document": "…"}]')


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


def _closest(
    doc: NormalisedDocument,
    quote: str,
    budget: Budget,
) -> tuple[int, int, float, list[tuple[str, int, int, int, int]]] | None:
    """Best window (word start, word length) by word alignment, with its opcodes."""
    qn = normalise_with_map(quote)[0]
    qkeys = [word_key(w) for w in qn.split(" ")] if qn else []
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
        window = Counter(doc.keys[s : s + n])
        shared[s] = sum(min(c, wanted[k]) for k, c in window.items() if k in wanted)
    best_matches, start = -1, 0
    for s in sorted(starts, key=lambda s: (-shared[s], s)):
        if shared[s] < best_matches:
            break  # no later window can align more words; ties go to the earliest start
        budget.spend()
        matcher.set_seq1(doc.keys[s : s + n])
        matches = sum(block.size for block in matcher.get_matching_blocks())
        if matches > best_matches or (matches == best_matches and s < start):
            best_matches, start = matches, s
    best: tuple = ()
    for shift in range(-2, 3):  # absorb inserted or dropped words around the seed
        s = start + shift
        for size in sorted({min(n + d, total - s) for d in range(-2, 3)}):
            if s >= 0 and size >= 1:
                budget.spend()
                matcher.set_seq1(doc.keys[s : s + size])
                ops = matcher.get_opcodes()
                matches = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")
                edits = sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")
                # most matched words, then fewest edits, then closest to the seed placement
                key = (matches, -edits, -abs(size - n) - abs(shift))
                if not best or key > best[0]:
                    best = (key, s, size, matcher.ratio(), ops)
    _, start, length, ratio, ops = best
    return start, length, ratio, ops


def closest_window(
    doc: NormalisedDocument, reader: CorpusReader, document_id: str, quote: str, hint: str | None, budget: Budget
) -> Closest | None:
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
        return quote[
            canonical_start(quote, qmap, qstarts[i1]) : canonical_end(
                quote, qmap, qstarts[i2 - 1] + len(qwords[i2 - 1]) - 1
            )
        ]

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
    text = doc.text[s:e]
    chunk_id, offset, continues_in = passage_place(reader, document_id, s, text, hint)
    return Closest(
        text=text,
        chunk_id=chunk_id,
        offset=offset,
        continues_in=continues_in,
        document_offsets=(s, e),
        similarity=round(ratio, 3),
        word_edits=edits,
        differing_words=differing,
    )
