"""Text fidelity of the PDF parser against the authors' sources (library/pdf_sources/): per
document, the word recall of the canonical text before and after the glyph and page-break
repairs, unknown glyphs, words left broken by a hyphen before a blank line, the repairs made,
the library-vocabulary share and the garbled flag.

    .venv/bin/python benchmarks/text_fidelity.py [--only STEM ...] [--missing] [--json] [--out OUT]

Recall: share of the source's prose word occurrences (code chunks, mathematics, commands,
preamble and bibliography removed; ingest/parsing/source_prose.py) that the canonical text holds,
read after NFKC as search and the verifier read it. "before" parses with repair=False.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import harness  # noqa: E402

from ingest.parsing.fidelity import library_pairs, measure_document  # noqa: E402
from ingest.parsing.glyph_repair import SYMBOL_PIECES  # noqa: E402

LIBRARY = Path(__file__).resolve().parents[1] / "library"


def _piece(repair: str) -> bool:
    """A private-use delimiter piece (many per formula: summed in the table)."""
    return ord(repair[0]) in SYMBOL_PIECES


def main() -> None:
    ap = harness.parser(__file__, __doc__)
    ap.add_argument("--only", nargs="*", help="PDF stems to measure (default: all with a source)")
    ap.add_argument("--missing", action="store_true", help="list the most frequent missed words")
    args = ap.parse_args()
    pairs = [p for p in library_pairs(LIBRARY) if not args.only or p[0].stem in args.only]
    rows = []
    harness.say(
        args,
        f"{'document':58} {'words':>6} {'before':>7} {'after':>7} {'unk':>4} {'brk b/a':>7} "
        f"{'attest':>6} {'garb':>4}  repairs",
    )
    for pdf, source in pairs:
        before, after = measure_document(pdf, source, repair=False), measure_document(pdf, source)
        rows.append({"before": asdict(before), "after": asdict(after)})
        repairs = ", ".join(f"{k} {v}" for k, v in after.repairs.items() if not _piece(k))
        pieces = sum(v for k, v in after.repairs.items() if _piece(k))
        repairs += (", " if repairs else "") + (f"{pieces} delimiter pieces" if pieces else "")
        if after.joined_words:
            repairs += (", " if repairs else "") + f"{after.joined_words} words rejoined"
        harness.say(
            args,
            f"{pdf.stem[:58]:58} {after.source_words:6d} {before.recall:7.4f} {after.recall:7.4f} "
            f"{after.unknown_glyphs:4d} {len(before.broken):3d}/{len(after.broken):<3d} "
            f"{after.attested_share:6.3f} {'yes' if after.garbled_text else 'no':>4}  {repairs or '-'}",
        )
        if args.missing:
            harness.say(args, "    missing:", ", ".join(f"{w} {n}" for w, n in after.missing))
    summary, lines = {}, []
    for label in ("before", "after"):
        recalls = [r[label]["recall"] for r in rows]
        clean = [r[label]["recall"] for r in rows if not r["after"]["garbled_text"]]
        summary[label] = {
            "median_recall": round(statistics.median(recalls), 4),
            "min_recall_unflagged": round(min(clean), 4),
            "broken_words": sum(len(r[label]["broken"]) for r in rows),
            "documents_with_broken_words": sum(1 for r in rows if r[label]["broken"]),
            "unknown_glyphs": sum(r[label]["unknown_glyphs"] for r in rows),
        }
        s = summary[label]
        lines.append(
            f"{label}: median recall {s['median_recall']:.4f}; min over unflagged "
            f"{s['min_recall_unflagged']:.4f}; broken words {s['broken_words']} in "
            f"{s['documents_with_broken_words']} documents; unknown glyphs {s['unknown_glyphs']}"
        )
    harness.emit(args, {"summary": summary, "documents": rows}, lines)


if __name__ == "__main__":
    main()
