"""The default extractor: a curated vocabulary (vocabulary.tsv) matched on word tokens, plus rules.

Text is cut into tokens (runs of word characters, or one punctuation character); dashes are
dropped, so "mean-variance" and "mean variance" are the same sequence, and a word broken by a
soft hyphen in PDF text is one token. At each token the longest known sequence wins. A form with a
capital after its first character (GARCH, CVaR, DEoptim) matches case-sensitively, any other form
ignores case; the last word's plural is matched too.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import regex
from pydantic import BaseModel, field_validator

from corpus.graph.entities import Mention, Relation
from corpus.graph.graph_store import ENTITY_TYPES
from corpus.models import Passage
from ingest.graph_extract.rules import (
    AuthorIndex,
    citations,
    clean_name,
    code_spans,
    defined_acronyms,
    head_noun_type,
    in_identifier,
    initialled_names,
)

VOCABULARY_FILE = Path(__file__).with_name("vocabulary.tsv")
EXTRACTOR_VERSION = "vocabulary-v1"
# a soft hyphen (U+00AD, or U+FFFE from some PDF text layers) before a lower-case letter splits a
# word across lines: "Con\ufffeditional" is one token; before a capital it stands for a real hyphen.
_TOKEN = regex.compile(r"\w+(?:[\u00ad\ufffe]\s*(?=\p{Ll})\w+)*|[^\w\s]")
_DASHES = frozenset("-\u2010\u2011\u2012\u2013\u2014\u2212\u00ad\ufffe")
_JOINERS = re.compile(r"[\u00ad\ufffe]\s*")


class VocabularyEntry(BaseModel):
    canonical: str
    type: str
    aliases: list[str]

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        if value not in ENTITY_TYPES:
            raise ValueError(f"unknown entity type {value!r}")
        return value

    @property
    def forms(self) -> list[str]:
        return [self.canonical, *self.aliases]


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    entry: VocabularyEntry
    case_sensitive: bool


def _tokens(text: str) -> list[tuple[int, int, str]]:
    """(start, end, normalised token); dashes dropped, soft-hyphen breaks joined, NFKC (ligatures)."""
    out = []
    for m in _TOKEN.finditer(text):
        token = m.group()
        if token in _DASHES:
            continue
        if not token.isascii():
            token = unicodedata.normalize("NFKC", _JOINERS.sub("", token)).replace("’", "'")
        out.append((m.start(), m.end(), token))
    return out


def is_case_sensitive(form: str) -> bool:
    return any(c.isupper() for c in form[1:])


def _plurals(word: str) -> list[str]:
    if not word.isalpha() or len(word) < 3:
        return []
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return [word + "es"] if not word.endswith("s") else []
    if word.endswith("y") and word[-2] not in "aeiou":
        return [word[:-1] + "ies"]
    return [word + "s"]


class Vocabulary:
    """Token-sequence lookup tables built from the TSV; duplicate forms across entries are errors."""

    def __init__(self, entries: list[VocabularyEntry], digest: str):
        self.entries, self.digest = entries, digest
        self._exact: dict[tuple[str, ...], VocabularyEntry] = {}
        self._folded: dict[tuple[str, ...], VocabularyEntry] = {}
        for entry in entries:
            for form in entry.forms:
                seq = tuple(t for _, _, t in _tokens(form))
                if is_case_sensitive(form):  # ETF -> ETFs, GH distribution -> GH distributions
                    last = seq[-1]
                    plurals = [last + "s"] if last[-1].isupper() else _plurals(last) if last.islower() else []
                    self._add(self._exact, [seq] + [seq[:-1] + (p,) for p in plurals], entry, form)
                else:
                    seq = tuple(t.casefold() for t in seq)
                    variants = [seq] + [seq[:-1] + (p,) for p in _plurals(seq[-1])]
                    self._add(self._folded, variants, entry, form)
        self._first = {s[0] for s in self._exact} | {s[0] for s in self._folded}
        self._longest = max(len(s) for s in [*self._exact, *self._folded])

    @staticmethod
    def _add(table: dict, variants: list[tuple[str, ...]], entry: VocabularyEntry, form: str) -> None:
        for i, seq in enumerate(variants):
            other = table.get(seq)
            if other is not None and other.canonical != entry.canonical:
                if i == 0:
                    raise ValueError(f"vocabulary form {form!r} belongs to {other.canonical!r} and {entry.canonical!r}")
                continue  # a generated plural never overrides a written form
            table[seq] = entry

    @classmethod
    def load(cls, path: Path = VOCABULARY_FILE) -> Vocabulary:
        data = path.read_bytes()
        entries = []
        for line in data.decode("utf-8").splitlines():
            if not line.strip() or line.startswith("#") or line.startswith("canonical\t"):
                continue
            canonical, kind, aliases = (line.split("\t") + [""])[:3]
            entries.append(
                VocabularyEntry(
                    canonical=canonical.strip(),
                    type=kind.strip(),
                    aliases=[a.strip() for a in aliases.split("|") if a.strip()],
                )
            )
        return cls(entries, hashlib.sha256(data).hexdigest()[:8])

    def match(self, text: str) -> list[Match]:
        """Longest known token sequence at each position, left to right, never overlapping."""
        tokens = _tokens(text)
        words = [t for _, _, t in tokens]
        folded = [w.casefold() for w in words]
        found, i = [], 0
        while i < len(tokens):
            start = tokens[i][0]
            if (words[i] not in self._first and folded[i] not in self._first) or (
                start > 0 and text[start - 1] == "\\"
            ):  # a LaTeX command, not a word
                i += 1
                continue
            for n in range(min(self._longest, len(tokens) - i), 0, -1):
                entry, sensitive = self._exact.get(tuple(words[i : i + n])), True
                if entry is None:
                    entry, sensitive = self._folded.get(tuple(folded[i : i + n])), False
                end = tokens[i + n - 1][1]
                if entry is not None and not in_identifier(text, start, end):
                    found.append(Match(start, end, entry, sensitive))
                    i += n
                    break
            else:
                i += 1
        return found


class VocabularyExtractor:
    """Vocabulary matches + defined acronyms + citations + catalogue authors; no relations."""

    def __init__(self, vocabulary: Vocabulary | None = None):
        self.vocabulary = vocabulary or Vocabulary.load()
        self.name = f"{EXTRACTOR_VERSION}:{self.vocabulary.digest}"

    def extract(self, passages: list[Passage], authors: dict[str, list[str]]) -> tuple[list[Mention], list[Relation]]:
        index = AuthorIndex(authors)
        by_document: dict[str, list[Passage]] = {}
        for passage in passages:
            by_document.setdefault(passage.document_id, []).append(passage)
        mentions: list[Mention] = []
        for document_passages in by_document.values():
            acronyms = self._document_acronyms(document_passages)
            for passage in document_passages:
                mentions += self._passage_mentions(passage, acronyms, index)
        return mentions, []

    def _resolve(self, text: str) -> tuple[str, str] | None:
        """(canonical, type) when the whole of `text` is a vocabulary form."""
        matches = self.vocabulary.match(text)
        if len(matches) == 1 and matches[0].start == 0 and matches[0].end == len(text):
            return matches[0].entry.canonical, matches[0].entry.type
        return None

    def _document_acronyms(self, passages: list[Passage]) -> dict[str, tuple[str, str] | None]:
        """Acronyms a document defines: SHORT -> (canonical, type), or None when neither the
        vocabulary nor the long form's head noun gives a type. Within the document, the definition
        overrides the vocabulary's reading of SHORT."""
        acronyms: dict[str, tuple[str, str] | None] = {}
        for passage in passages:
            for d in defined_acronyms(passage.text):
                if d.short.text in acronyms and acronyms[d.short.text] is not None:
                    continue  # the first resolvable definition in reading order wins
                acronyms[d.short.text] = self._resolve_definition(d.long.text, d.short.text)
        return acronyms

    def _resolve_definition(self, long: str, short: str) -> tuple[str, str] | None:
        """The vocabulary's reading of the long form, else of the short form (a variant spelling of
        a known term), else the long form itself typed by its head noun, else None."""
        kind = head_noun_type(long)
        return self._resolve(long) or self._resolve(short) or ((clean_name(long), kind) if kind else None)

    def _passage_mentions(
        self, passage: Passage, acronyms: dict[str, tuple[str, str] | None], index: AuthorIndex
    ) -> list[Mention]:
        text = passage.text
        # candidates: (start, end, canonical, type, priority) — lower priority wins a tie in length
        candidates = [(s.start, s.end, name, "person", 0) for s, name in index.find(text)]
        candidates += [
            (s.start, s.end, index.resolve_surname(s.text), "person", 1)
            for s in citations(text) + initialled_names(text)
        ]
        for m in self.vocabulary.match(text):
            surface = text[m.start : m.end]
            if surface in acronyms:  # the document's own definition of this acronym rules
                if (own := acronyms[surface]) is not None:
                    candidates.append((m.start, m.end, *own, 3))
                continue
            candidates.append((m.start, m.end, m.entry.canonical, m.entry.type, 2 if m.case_sensitive else 4))
        for d in defined_acronyms(text):
            if (defined := acronyms.get(d.short.text)) is not None:
                candidates.append((d.long.start, d.long.end, *defined, 3))
        for short, resolved in acronyms.items():
            if resolved is not None:
                candidates += [
                    (m.start(), m.end(), *resolved, 3)
                    for m in re.finditer(rf"(?<!\w){re.escape(short)}(?!\w)", text)
                    if not in_identifier(text, m.start(), m.end())
                ]
        masked = code_spans(text)
        taken: list[tuple[int, int]] = []
        mentions = []
        for start, end, name, kind, _ in sorted(set(candidates), key=lambda c: (c[0] - c[1], c[4], c[0])):
            if any(s < end and start < e for s, e in taken) or any(s <= start < e for s, e in masked):
                continue
            taken.append((start, end))
            mentions.append(Mention(passage.chunk_id, passage.document_id, name, kind, start, end, text[start:end]))
        mentions.sort(key=lambda m: m.start)
        return mentions
