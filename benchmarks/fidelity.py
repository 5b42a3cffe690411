"""Text fidelity of the PDF parser at scale, on tools/debian_vignettes' corpus (manifest.csv, pdf/,
sources/): every PDF parsed once as ingest parses it, then

* word recall against the vignette's own source (ingest/parsing/fidelity.py: the share of the
  source's prose word occurrences the canonical text holds), over the judged vignettes: those with
  a source that can judge them (`unjudged` names, per document, why another is not judged);
  median, p5, how many below RECALL_FLOOR unflagged and flagged `garbled_text`, the worst ones with
  the words they miss;
* words left split by a hyphen before a blank line, over every canonical text;
* words still missing a ligature, over the judged vignettes (benchmarks/ligatures.py's measure);
* mojibake (UTF-8 read as Windows-1252 or Latin-1), over every canonical text.

    .venv/bin/python benchmarks/fidelity.py --corpus DIR [--only STEM ...] [--jobs N] [--worst N] [--json] [--out OUT]

No network: the corpus is a folder built beforehand (python -m tools.debian_vignettes build).
"""

from __future__ import annotations

import csv
import statistics
import sys
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import harness  # noqa: E402
from ligatures import PROSE, dropped_words, source_written  # noqa: E402

from corpus.text.canonical import assemble_canonical  # noqa: E402
from ingest.parsing import parse_source  # noqa: E402
from ingest.parsing.fidelity import hyphen_breaks, missing_words, mojibake, unjudged, word_recall  # noqa: E402
from ingest.parsing.source_prose import source_words  # noqa: E402

RECALL_FLOOR = 0.95  # the line: a judged PDF below it needs a cause, unless flagged garbled


def corpus_rows(corpus: Path) -> list[tuple[Path, Path | None]]:
    """(PDF, its vignette source or None) of every manifest row whose PDF is there."""
    rows = []
    with open(corpus / "manifest.csv", encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            pdf, source = corpus / row["file"], row.get("vignette_source") or ""
            if pdf.exists():
                rows.append((pdf, corpus / source if source and (corpus / source).exists() else None))
    return rows


def measure(pair: tuple[Path, Path | None]) -> dict[str, Any]:
    pdf, source = pair
    row: dict[str, Any] = {"document": pdf.stem}
    try:
        output = parse_source(pdf, "pdf")
    except Exception as exc:  # set aside by ingest too; reported, never silently dropped
        return row | {"error": f"{type(exc).__name__}: {exc}"[:160]}
    canonical, _ = assemble_canonical(output.raw_blocks)
    row |= {"garbled_text": output.garbled_text, "hyphen_breaks": hyphen_breaks(canonical)}
    row["mojibake"] = mojibake(canonical)
    if source is None:
        return row
    row["unjudged"] = unjudged(source)
    if row["unjudged"] is None:
        words = source_words(source)
        prose, _ = assemble_canonical([b for b in output.raw_blocks if b.kind in PROSE])
        row |= {"source_words": len(words), "recall": round(word_recall(words, canonical), 4)}
        row["missing"] = missing_words(words, canonical, top=8)
        row["dropped_ligatures"] = dict(dropped_words(prose, words, source_written(source)).most_common())
    return row


def _listed(counts: dict[str, int] | list[tuple[str, int]]) -> str:
    items = counts.items() if isinstance(counts, dict) else counts
    return ", ".join(f"{w} {n}" for w, n in items) or "-"


def summarise(rows: list[dict[str, Any]], worst: int) -> tuple[dict[str, Any], list[str]]:
    judged = [r for r in rows if "recall" in r]
    recalls = [r["recall"] for r in judged]
    low = [r for r in judged if r["recall"] < RECALL_FLOOR]
    parsed = [r for r in rows if "error" not in r]
    breaks = [(r["document"], b) for r in parsed for b in r["hyphen_breaks"]]
    flagged = {r["document"] for r in parsed if r["garbled_text"]}
    dropped = {
        r["document"]: r["dropped_ligatures"] for r in judged if r["dropped_ligatures"] and not r["garbled_text"]
    }
    moji = {r["document"]: len(r["mojibake"]) for r in parsed if r["mojibake"] and not r["garbled_text"]}
    summary: dict[str, Any] = {
        "documents": len(rows),
        "parse_errors": {r["document"]: r["error"] for r in rows if "error" in r},
        "with_source": sum(1 for r in rows if "unjudged" in r),
        "unjudged": {r["document"]: r["unjudged"] for r in rows if r.get("unjudged")},
        "judged": len(judged),
        "median_recall": round(statistics.median(recalls), 4) if recalls else None,
        "p5_recall": round(harness.percentile(recalls, 5), 4) if recalls else None,
        "below_floor_unflagged": [r["document"] for r in low if not r["garbled_text"]],
        "below_floor_garbled": [r["document"] for r in low if r["garbled_text"]],
        "hyphen_breaks": len(breaks),
        "hyphen_breaks_garbled": sum(1 for d, _ in breaks if d in flagged),
        "dropped_ligatures": sum(sum(d.values()) for d in dropped.values()),
        "dropped_ligature_documents": len(dropped),
        "dropped_ligatures_garbled": sum(sum(r["dropped_ligatures"].values()) for r in judged if r["garbled_text"]),
        "mojibake": sum(moji.values()),
        "mojibake_documents": len(moji),
        "mojibake_garbled": sum(len(r["mojibake"]) for r in parsed if r["garbled_text"]),
    }
    lines = [f"not judged: {d} — {why}" for d, why in summary["unjudged"].items()]
    lines += [f"parse error: {d} — {why}" for d, why in summary["parse_errors"].items()]
    lines.append(f"worst {worst} judged vignettes (recall, garbled flag, source words, words missed most):")
    for r in sorted(judged, key=lambda r: r["recall"])[:worst]:
        flag = "garbled" if r["garbled_text"] else "-"
        lines.append(f"  {r['recall']:.4f} {flag:7} {r['source_words']:6d}  {r['document']}: {_listed(r['missing'])}")
    lines.append(
        f"hyphen breaks left: {len(breaks)}, {summary['hyphen_breaks_garbled']} of them in texts flagged garbled"
        + "".join(f"\n  {d}{' (garbled)' if d in flagged else ''}: {b}" for d, b in breaks)
    )
    lines.append(f"words missing a ligature: {summary['dropped_ligatures']} in {len(dropped)} documents (not flagged)")
    lines += [f"  {d}: {_listed(words)}" for d, words in dropped.items()]
    lines.append(
        f"mojibake: {summary['mojibake']} in {len(moji)} documents not flagged"
        + "".join(f"; {d} {n}" for d, n in moji.items())
        + f" (and {summary['mojibake_garbled']} in those flagged garbled)"
    )
    lines.append(
        f"{summary['documents']} PDFs, {summary['with_source']} with a source, {summary['judged']} judged: median "
        f"recall {summary['median_recall']}, p5 {summary['p5_recall']}, below {RECALL_FLOOR} "
        f"{len(summary['below_floor_unflagged'])} unflagged + {len(summary['below_floor_garbled'])} flagged garbled; "
        f"hyphen breaks {len(breaks)}; missing ligatures {summary['dropped_ligatures']}; mojibake {summary['mojibake']}"
    )
    return summary, lines


def main() -> None:
    ap = harness.parser(__file__, __doc__)
    ap.add_argument("--corpus", type=Path, required=True, help="tools/debian_vignettes' corpus folder")
    ap.add_argument("--only", nargs="*", help="PDF stems to measure (default: every PDF of the manifest)")
    ap.add_argument("--jobs", type=int, default=1, help="parsing processes")
    ap.add_argument("--worst", type=int, default=10, help="judged vignettes listed, worst recall first")
    args = ap.parse_args()
    pairs = [p for p in corpus_rows(args.corpus) if not args.only or p[0].stem in args.only]
    with Pool(args.jobs) as pool:
        rows = list(pool.imap(measure, pairs, chunksize=4))
    summary, lines = summarise(rows, args.worst)
    harness.emit(args, {"summary": summary, "documents": rows}, lines)


if __name__ == "__main__":
    main()
