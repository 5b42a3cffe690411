"""Ligatures a font's text map loses (ingest/parsing/ligatures.py), measured on a corpus of R
vignettes with their sources (tools/debian_vignettes' folder: manifest.csv, pdf/, sources/): per
document, the word recall of the canonical text against the source's prose before and after the
restoration, the words still missing a ligature, and the words restored.

    .venv/bin/python benchmarks/ligatures.py --corpus DIR [--only STEM ...] [--all] [--json] [--out OUT]

"before" parses with the restoration turned off (everything else as served); "after" as served.
Recall is benchmarks/text_fidelity.py's: the share of the source's prose word occurrences
(ingest/parsing/source_prose.py) that the canonical text holds. A word still missing a ligature is
a word of the canonical text's prose blocks (paragraphs, headings, lists, captions, footnotes) that
the source's prose does not write, but a word of that prose holding a ligature becomes when ff, fi,
fl, ffi or ffl is inserted at one position ('rst' where the source writes 'first'), counted per
occurrence; only documents with a source are counted. By
default only the documents that lose a ligature (before or after) are listed; --all lists every one.
"""

from __future__ import annotations

import contextlib
import csv
import re
import statistics
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import harness  # noqa: E402

import ingest.parsing.pdf as pdf_parser  # noqa: E402
from corpus.models import BlockKind  # noqa: E402
from corpus.text.canonical import assemble_canonical  # noqa: E402
from ingest.parsing import parse_source  # noqa: E402
from ingest.parsing.fidelity import word_recall  # noqa: E402
from ingest.parsing.ligatures import LIGATURES, LigatureRepair  # noqa: E402
from ingest.parsing.source_prose import WORD, source_words  # noqa: E402

# A word as a reader sees it: ASCII letters between anything but a letter (of any script), a digit,
# an underscore or an apostrophe ('nd' of '2nd', 'll' of "we'll" or 'Köll' are no words).
_WORD = re.compile(r"(?<![\w'’])[A-Za-z]{2,}(?!\w)")
# Letter-spaced text (code set in fixed columns: 'quant i le i s', ') , le gendA r g s') is no prose:
# a word with SPACED_TOKENS one-character tokens (not 'a', 'A', 'I' or a dash) among the two on
# either side of it is not counted.
_TOKENS = re.compile(r"\S+")
SPACED_TOKENS = 2
_ONE_CHARACTER = re.compile(r"[^aAI\-–—]")
# Where a missing ligature is counted: prose (a table cell's 'nt' of 'pri nt', a formula's 'O(nd)'
# or a code line's 'tt()' is no prose word the source writes).
PROSE = {BlockKind.paragraph, BlockKind.heading, BlockKind.list, BlockKind.caption, BlockKind.footnote}


def corpus_pairs(corpus: Path) -> list[tuple[Path, Path]]:
    """(PDF, its vignette source) of every row of the corpus's manifest.csv whose source is there."""
    pairs = []
    with open(corpus / "manifest.csv", encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            pdf, source = corpus / row["file"], row.get("vignette_source") or ""
            if pdf.exists() and source and (corpus / source).exists():
                pairs.append((pdf, corpus / source))
    return pairs


def dropped_words(canonical: str, source: list[str], written: set[str] | frozenset[str] = frozenset()) -> Counter:
    """{word: occurrences} of the canonical text's words still missing a ligature (module docstring);
    a word the source writes anywhere (`written`, case-folded: code and mathematics too, 'tt(x)',
    'O(nd)') or a piece of letter-spaced text is none."""
    prose = {w.casefold() for w in source}
    holders = {w for w in prose if any(lig in w for lig in LIGATURES)}
    found: Counter = Counter()
    for m in _WORD.finditer(canonical):
        word, folded = m.group(), m.group().casefold()
        if folded in prose or folded in written:
            continue
        if _letter_spaced(canonical, m.start(), m.end()):
            continue
        for at in range(len(word) + 1):
            after = word[at : at + 1]
            if after.isupper() or (not after and not word[-1].islower()):
                continue  # a ligature is lower-case letters
            if any(folded[:at] + lig + folded[at:] in holders for lig in LIGATURES):
                found[word] += 1
                break
    return found


def _letter_spaced(text: str, start: int, end: int) -> bool:
    around = _TOKENS.findall(text[max(start - 12, 0) : start])[-2:] + _TOKENS.findall(text[end : end + 12])[:2]
    return sum(1 for t in around if len(t) == 1 and _ONE_CHARACTER.fullmatch(t)) >= SPACED_TOKENS


def source_written(source: Path) -> set[str]:
    """The case-folded words (two letters or more) a source file writes anywhere: prose, code, math."""
    return {w.casefold() for w in WORD.findall(source.read_text(encoding="utf-8", errors="replace"))}


@contextlib.contextmanager
def without_restoration() -> Iterator[None]:
    """The PDF parser with the ligature restoration turned off (the parser before it)."""
    kept = pdf_parser.restore_ligatures
    pdf_parser.restore_ligatures = lambda pages: LigatureRepair()
    try:
        yield
    finally:
        pdf_parser.restore_ligatures = kept


def measure(pdf: Path, source: Path) -> dict:
    words = source_words(source)
    row: dict = {"document": pdf.stem, "source_words": len(words)}
    for label in ("before", "after"):
        with without_restoration() if label == "before" else contextlib.nullcontext():
            output = parse_source(pdf, "pdf")
        canonical, _ = assemble_canonical(output.raw_blocks)
        prose, _ = assemble_canonical([b for b in output.raw_blocks if b.kind in PROSE])
        dropped = dropped_words(prose, words, source_written(source))
        row[label] = {
            "recall": round(word_recall(words, canonical), 4),
            "dropped": sum(dropped.values()),
            "dropped_words": dict(dropped.most_common()),
        }
        if label == "after" and output.quality is not None:
            row["restored"] = sum(output.quality.ligatures.values())
            row["restored_words"] = len(output.quality.ligatures)
            row["characters"] = {k.encode("unicode_escape").decode(): v for k, v in output.quality.repairs.items()}
    return row


def main() -> None:
    ap = harness.parser(__file__, __doc__)
    ap.add_argument("--corpus", type=Path, required=True, help="tools/debian_vignettes' corpus folder")
    ap.add_argument("--only", nargs="*", help="PDF stems to measure (default: every PDF with a source)")
    ap.add_argument("--all", action="store_true", help="list every document, not only those that lose a ligature")
    args = ap.parse_args()
    pairs = [p for p in corpus_pairs(args.corpus) if not args.only or p[0].stem in args.only]
    harness.say(args, f"{'document':56} {'words':>6} {'recall b/a':>15} {'dropped b/a':>11} {'restored':>8}  left")
    rows = []
    for pdf, source in pairs:
        row = measure(pdf, source)
        rows.append(row)
        b, a = row["before"], row["after"]
        if args.all or b["dropped"] or a["dropped"]:
            left = ", ".join(f"{w} {n}" for w, n in list(a["dropped_words"].items())[:6])
            harness.say(
                args,
                f"{pdf.stem[:56]:56} {row['source_words']:6d} {b['recall']:7.4f}/{a['recall']:.4f} "
                f"{b['dropped']:5d}/{a['dropped']:<5d} {row.get('restored', 0):8d}  {left or '-'}",
            )
    summary: dict[str, Any] = {
        label: {
            "median_recall": round(statistics.median(r[label]["recall"] for r in rows), 4) if rows else None,
            "dropped": sum(r[label]["dropped"] for r in rows),
            "documents_with_dropped": sum(1 for r in rows if r[label]["dropped"]),
        }
        for label in ("before", "after")
    }
    summary["documents"] = len(rows)
    summary["restored"] = sum(r.get("restored", 0) for r in rows)
    summary["documents_restored"] = sum(1 for r in rows if r.get("restored"))
    lines = [
        f"{len(rows)} documents with a source; {summary['documents_restored']} with ligatures restored "
        f"({summary['restored']} words)",
        *(
            f"{label}: median recall {summary[label]['median_recall']}; words missing a ligature "
            f"{summary[label]['dropped']} in {summary[label]['documents_with_dropped']} documents"
            for label in ("before", "after")
        ),
    ]
    harness.emit(args, {"summary": summary, "documents": rows}, lines)


if __name__ == "__main__":
    main()
