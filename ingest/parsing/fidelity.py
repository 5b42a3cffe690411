"""Text fidelity of a parse against the author's source: word recall, unknown glyphs, words left
broken by a hyphen before a blank line, mojibake, and whether a source can judge its PDF at all.
Used by the tests, benchmarks/text_fidelity.py and benchmarks/fidelity.py."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ingest.parsing.glyphs import unknown_glyphs
from ingest.parsing.source_prose import WORD, source_file, source_words

_BROKEN = re.compile(r"([A-Za-z]+)-\n\n+([a-z]+)")
# UTF-8 read as Windows-1252 or Latin-1: a lead byte's character (Â-ô) then continuation bytes'
# characters ('Ã©' for 'é', 'â€™' for '’'); `mojibake` keeps the runs that decode back.
_CONTINUATION_BYTES = "".join(bytes([b]).decode("cp1252", "ignore") or chr(b) for b in range(0x80, 0xC0))
_MORE = f"[{re.escape(_CONTINUATION_BYTES)}]"
_MOJIBAKE = re.compile(f"[\u00c2-\u00df]{_MORE}|[\u00e0-\u00ef]{_MORE}{{2}}|[\u00f0-\u00f4]{_MORE}{{3}}")
# The same bytes typeset by LaTeX as T1 (UTF-8's three-byte punctuation: 'âĂŸ' or, its accents
# read apart, '^a˘A¨Y' for '“'): mojibake in the PDF itself.
_TEX_MOJIBAKE = re.compile(r"(?:â|\^a)(?:Ă|˘A)\S")
# A source that typesets another PDF (\includepdf outside a comment): the PDF is mostly not its source.
_INCLUDES_PDF = re.compile(r"^[^%\n]*\\includepdf\s*[\[{]", re.M)
MIN_SOURCE_WORDS = 50  # fewer prose words in a source judge nothing (a stub that inputs the real text)


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


def hyphen_breaks(text: str) -> list[str]:
    """Every word left split by a hyphen before a blank line ('volatil-ity'), attested or not."""
    return [f"{a}-{b}" for a, b in _BROKEN.findall(text)]


def mojibake(text: str) -> list[str]:
    """The runs of `text` that are UTF-8 read as Windows-1252 or Latin-1 ('Ã©' for 'é'), beside a
    letter as a misread letter or quotation mark stands (a formula's 'È˜(' is an accent and a
    letter), or as T1 by LaTeX ('âĂŸ')."""
    found = []
    for m in _MOJIBAKE.finditer(text):
        if not (text[m.start() - 1 : m.start()].isalpha() or text[m.end() : m.end() + 1].isalpha()):
            continue
        for codec in ("cp1252", "latin-1"):
            try:
                m.group().encode(codec).decode("utf-8")
            except UnicodeError:
                continue
            found.append(m.group())
            break
    return found + _TEX_MOJIBAKE.findall(text)


def unjudged(source: Path) -> str | None:
    """Why `source` cannot judge its PDF's text (None: it can): it typesets another PDF, or it
    holds fewer than MIN_SOURCE_WORDS prose words."""
    text = Path(source).read_text(encoding="utf-8", errors="replace")
    if m := _INCLUDES_PDF.search(text):
        return f"the source typesets another PDF ({m.group().strip()[:40]}...)"
    if (n := len(source_words(source))) < MIN_SOURCE_WORDS:
        return f"the source holds {n} prose words (< {MIN_SOURCE_WORDS})"
    return None


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
