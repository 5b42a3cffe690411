"""Text fidelity of a parse against the author's source: word recall, unknown glyphs, and words
left broken by a hyphen before a blank line. Used by the tests and benchmarks/text_fidelity.py."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ingest.parsing.glyphs import unknown_glyphs
from ingest.parsing.source_prose import WORD, source_file, source_words

_BROKEN = re.compile(r"([A-Za-z]+)-\n\n+([a-z]+)")


def served_words(canonical: str) -> set[str]:
    """The case-folded words a reader of the canonical text finds (NFKC, as search and the
    verifier read it, so a ligature character counts as its letters)."""
    return {w.casefold() for w in WORD.findall(unicodedata.normalize("NFKC", canonical))}


def word_recall(source: list[str], canonical: str) -> float:
    """Share of the source's prose word occurrences that the canonical text holds (1.0 if none)."""
    if not source:
        return 1.0
    found = served_words(canonical)
    counts = Counter(w.casefold() for w in source)
    return sum(n for w, n in counts.items() if w in found) / sum(counts.values())


def missing_words(source: list[str], canonical: str, top: int = 10) -> list[tuple[str, int]]:
    found = served_words(canonical)
    return Counter(w.casefold() for w in source if w.casefold() not in found).most_common(top)


def broken_words(text: str, vocabulary: set[str] | frozenset[str]) -> list[str]:
    """Words split by a hyphen before a blank line whose joined form is in `vocabulary`."""
    return [f"{a}-{b}" for a, b in _BROKEN.findall(text) if (a + b).casefold() in vocabulary]


@dataclass
class DocumentFidelity:
    stem: str
    recall: float
    source_words: int
    unknown_glyphs: int
    broken: list[str]
    garbled_text: bool
    attested_share: float
    repairs: dict[str, int]
    joined_words: int
    missing: list[tuple[str, int]]


def measure_document(pdf: Path, source: Path, repair: bool = True) -> DocumentFidelity:
    """Parse `pdf` with the project's parser (as ingest does, canonical text assembled) and
    measure it against the author's `source`."""
    from corpus.text.canonical import assemble_canonical
    from ingest.parsing import parse_source
    from ingest.parsing.vocabulary import library_vocabulary, words_of

    output = parse_source(pdf, "pdf", repair=repair)
    canonical, _ = assemble_canonical(output.raw_blocks)
    words = source_words(source)
    quality = output.quality
    return DocumentFidelity(
        stem=pdf.stem,
        recall=word_recall(words, canonical),
        source_words=len(words),
        unknown_glyphs=unknown_glyphs(canonical),
        broken=broken_words(canonical, library_vocabulary() | words_of(canonical)),
        garbled_text=output.garbled_text,
        attested_share=quality.attested_share if quality else 0.0,
        repairs=dict(quality.repairs) if quality else {},
        joined_words=quality.joined_words if quality else 0,
        missing=missing_words(words, canonical),
    )


def library_pairs(library: Path) -> list[tuple[Path, Path]]:
    """(PDF, its vignette source) for every library PDF whose source ships in pdf_sources/."""
    pairs = []
    for folder in sorted((library / "pdf_sources").iterdir()):
        pdf = library / "pdf" / f"{folder.name}.pdf"
        if folder.is_dir() and pdf.exists() and (src := source_file(folder)) is not None:
            pairs.append((pdf, src))
    return pairs
