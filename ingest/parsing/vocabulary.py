"""The library vocabulary: lower-case words that at least two documents of the bundled library write
(Markdown lectures and PDFs, read before any repair). It is the evidence the parser asks for before
it repairs a glyph or joins a broken word, and the yardstick of a document's text quality.

A frozen file, so a parse never depends on what else is in the corpus (offsets are opposable: the
same parser version on the same bytes gives the same text). Rebuild, then bump PARSER_VERSION:

    .venv/bin/python scripts/rebuild_vocabulary.py
"""

from __future__ import annotations

import gzip
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

VOCABULARY_FILE = Path(__file__).with_name("library_vocabulary.txt.gz")
# English words of five letters or more (SCOWL; frozen, rebuilt by scripts/rebuild_english_words.py):
# what a word TeX hyphenated across a page or column break is when the library does not write it.
DICTIONARY_FILE = Path(__file__).with_name("english_words.txt.gz")
MIN_DOCUMENTS = 2  # a word one document writes may be its own typo or garbling
_LETTERS = re.compile(r"[^\W\d_]+")
_ASCII_WORD = re.compile(r"[a-z]{2,}")


def words_of(text: str) -> set[str]:
    """Lower-case ASCII words of `text` (NFKC first, so ligature characters read as letters); a
    run of letters holding any other letter ('Ąnancial', 'σ2η') is not a word here."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return {w for w in _LETTERS.findall(folded) if _ASCII_WORD.fullmatch(w)}


@lru_cache(maxsize=1)
def library_vocabulary() -> frozenset[str]:
    with gzip.open(VOCABULARY_FILE, "rt", encoding="utf-8") as handle:
        return frozenset(line.strip() for line in handle if line.strip())


@lru_cache(maxsize=1)
def dictionary_words() -> frozenset[str]:
    """The frozen English list (DICTIONARY_FILE), lower case; its '#' lines are SCOWL's notices."""
    with gzip.open(DICTIONARY_FILE, "rt", encoding="utf-8") as handle:
        return frozenset(w for line in handle if (w := line.strip()) and not w.startswith("#"))


def build_vocabulary(texts: Iterable[str], min_documents: int = MIN_DOCUMENTS) -> list[str]:
    counts: Counter = Counter()
    for text in texts:
        counts.update(words_of(text))
    return sorted(w for w, n in counts.items() if n >= min_documents)
