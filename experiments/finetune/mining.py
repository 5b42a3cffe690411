"""Pseudo-queries mined from the library: each pairs a query with the passage text it came from.

Four kinds, each taking the query's own words out of its positive so the pair teaches more than
string matching: a section heading → its passage (the heading dropped from both the text and the
embedded section path); a sentence → the rest of its passage; an acronym's long form → its defining
passage with the definition reduced to the bare acronym; a table or figure caption → the rest of
its passage. Documents are split into train and held-out by a seeded hash, so no held-out document
lends a word to training.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass

from corpus.encoding.embedder import embedding_prefix
from corpus.models import Passage

KINDS = ("heading", "sentence", "acronym", "caption")
MIN_REST_CHARS = 120  # a positive shorter than this says too little to learn from
GENERIC_HEADINGS = frozenset(
    """abstract acknowledgements acknowledgments appendix background
conclusion conclusions contents discussion example examples exercise exercises introduction
motivation notes overview preliminaries references remarks results setup summary""".split()
)
STOP = frozenset("a an and at by for in of on or the to with".split())
_NUMBERING = re.compile(r"^\s*(?:[#]+\s*)?(?:[0-9IVX]+(?:\.[0-9]+)*\.?|[A-Z]\.)\s+")
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)][.!?])\s+(?=[A-Z])|\n")
_ACRONYM = re.compile(r"((?:[A-Za-z][\w'-]*\s+){1,8})\(([A-Z][A-Za-z]{1,7})\)")
_CAPTION = re.compile(r"^(?:Table|Figure|Fig\.|Exhibit)\s*[0-9A-Z.]+[:.]?\s+(.{15,300})$", re.M)


@dataclass(frozen=True)
class PseudoQuery:
    kind: str
    query: str
    positive: str  # the embedded form: section-path line, newline, passage text
    chunk_id: str
    document_id: str


def embedded_text(title: str | None, section: list[str], text: str) -> str:
    """What the embedder sees for a passage (the same lead line as corpus.encoding.embedder's pieces)."""
    head = embedding_prefix(title, section).strip()
    return f"{head}\n{text}" if head else text


def split_documents(document_ids: list[str], held_out_share: float, seed: int) -> tuple[set[str], set[str]]:
    """(train, held_out): documents ordered by a seeded hash of their id, the first share held out
    (at least one of each when there are two or more documents); independent of input order."""
    ranked = sorted(set(document_ids), key=lambda d: hashlib.sha256(f"{seed}:{d}".encode()).hexdigest())
    count = round(len(ranked) * held_out_share)
    if len(ranked) >= 2:
        count = min(max(count, 1), len(ranked) - 1)
    return set(ranked[count:]), set(ranked[:count])


def _words(text: str) -> int:
    return len(text.split())


def _prose(text: str) -> bool:
    letters = sum(c.isalpha() or c.isspace() for c in text)
    return letters >= 0.85 * len(text) and not any(c in text for c in "$|\\`{}=<>_")


def _heading(title: str | None, p: Passage) -> PseudoQuery | None:
    if not p.section or not p.block_kinds or p.block_kinds[0].value != "heading":
        return None
    head, _, body = p.text.partition("\n")
    query = _NUMBERING.sub("", p.section[-1]).strip(" .:#")
    if (
        head.strip() != p.section[-1].strip()
        or _words(query) < 2
        or len(body.strip()) < MIN_REST_CHARS
        or query.lower() in GENERIC_HEADINGS
        or not _prose(query)
        or query.casefold() in embedding_prefix(title, p.section[:-1]).casefold()
    ):
        return None
    return PseudoQuery("heading", query, embedded_text(title, p.section[:-1], body.strip()), p.chunk_id, p.document_id)


def _sentence(title: str | None, p: Passage, rng: random.Random) -> PseudoQuery | None:
    candidates = [s.strip() for s in _SENTENCE_END.split(p.text)]
    candidates = [s for s in candidates if 8 <= _words(s) <= 45 and _prose(s) and s.endswith((".", "?", "!"))]
    if not candidates:
        return None
    sentence = rng.choice(candidates)
    rest = p.text.replace(sentence, "", 1)
    if len(rest.strip()) < MIN_REST_CHARS:
        return None
    return PseudoQuery("sentence", sentence, embedded_text(title, p.section, rest), p.chunk_id, p.document_id)


def _long_form(words: list[str], acronym: str) -> list[str] | None:
    """The trailing words whose initials spell the acronym's capitals (stop words may sit between)."""
    letters = [c.lower() for c in acronym if c.isupper()]
    parts = [w for word in words for w in word.split("-") if w]
    taken: list[str] = []
    while parts and letters:
        word = parts.pop()
        taken.insert(0, word)
        if word.lower() in STOP and taken[1:]:
            continue
        if word[0].lower() != letters.pop():
            return None
    return taken if not letters and len(taken) >= 2 else None


def _acronyms(title: str | None, p: Passage, seen: set[tuple[str, str]]) -> list[PseudoQuery]:
    found = []
    for match in _ACRONYM.finditer(p.text):
        acronym = match.group(2)
        if sum(c.isupper() for c in acronym) < 2 or (p.document_id, acronym) in seen:
            continue
        words = _long_form(match.group(1).split(), acronym)
        if words is None:
            continue
        seen.add((p.document_id, acronym))
        long_form = " ".join(words)
        definition = p.text[match.start(1) : match.end()]
        # keep the words before the long form; the definition becomes the bare acronym
        kept = definition[: definition.rfind(words[0])] if words[0] in definition else ""
        rest = p.text[: match.start(1)] + kept + acronym + p.text[match.end() :]
        if len(rest) >= MIN_REST_CHARS:
            found.append(
                PseudoQuery("acronym", long_form, embedded_text(title, p.section, rest), p.chunk_id, p.document_id)
            )
    return found


def _caption(title: str | None, p: Passage) -> PseudoQuery | None:
    match = _CAPTION.search(p.text)
    if match is None or "caption" not in {k.value for k in p.block_kinds} or _words(match.group(1)) < 3:
        return None
    rest = (p.text[: match.start()] + p.text[match.end() :]).strip()
    if len(rest) < MIN_REST_CHARS:
        return None
    return PseudoQuery(
        "caption", match.group(1).strip(), embedded_text(title, p.section, rest), p.chunk_id, p.document_id
    )


def mine_document(title: str | None, passages: list[Passage], seed: int) -> list[PseudoQuery]:
    """Every pseudo-query of one document, in reading order; the sentence choice is seeded by
    (seed, chunk_id), so a document's pairs do not depend on which other documents are mined."""
    found: list[PseudoQuery] = []
    seen: set[tuple[str, str]] = set()
    for p in passages:
        if p.garbled_text:
            continue  # broken font mapping: its words are not the document's words
        rng = random.Random(f"{seed}:{p.chunk_id}")
        found += [q for q in (_heading(title, p), _sentence(title, p, rng), _caption(title, p)) if q]
        found += _acronyms(title, p, seen)
    return found
