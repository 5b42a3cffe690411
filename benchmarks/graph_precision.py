"""Precision and recall of the graph extractor on a hand-labelled sample, per entity type.

Sample (graph_labelled_sample.jsonl): passages drawn with fixed seeds from prose paragraphs of the
Markdown lectures and prose windows of PDF vignettes (pypdfium2 text), each with the entities
judged correct by reading it. Split "tuning" (42 passages) was looked at while the vocabulary and
rules were refined, so its figures are optimistic; split "holdout" (12 passages) was labelled
after they were frozen and scored once. Labelling guideline: every specific term of the seven
types, once per passage: named people (cited or in references), organisations, instruments
(asset classes, tickers), market and statistical concepts, measures, methods (models, estimators,
tests, algorithms, strategies, software packages, R functions named as methods), named data sets
and indices. Generic words (data, model, returns, price, portfolio, risk, strategy), symbols and
code are not entities. "a|b" lists accepted spellings of one entity.

A prediction is correct when its name or written form folds (entity_key) to an accepted spelling
of a gold entity of the same type in the same passage; each gold entity is matched once.

    .venv/bin/python benchmarks/graph_precision.py [--model PATH] [--verbose]
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import harness

from corpus.graph.graph_store import ENTITY_TYPES, entity_key
from corpus.ids import document_id_for_bytes, sha256_hex
from corpus.models import Passage
from ingest.graph_extract import load_extractor

HERE = Path(__file__).resolve().parent
SAMPLE = HERE / "graph_labelled_sample.jsonl"
LIBRARY = HERE.parent / "library"


def load_sample() -> tuple[list[dict], list[Passage], dict[str, list[str]]]:
    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    manifest = list(csv.DictReader((LIBRARY / "manifest.csv").open(encoding="utf-8")))
    doc_ids = {m["file"]: document_id_for_bytes((LIBRARY / m["file"]).read_bytes()) for m in manifest}
    authors = {doc_ids[m["file"]]: [m["authors"]] for m in manifest}  # the whole catalogue, as in a build
    passages = [
        Passage(
            chunk_id="chunk-" + sha256_hex(row["id"])[:16],
            document_id=doc_ids[row["source"]],
            ordinal=0,
            text=row["text"],
            ranges=[(0, len(row["text"]))],
            granularity="block",
        )
        for row in rows
    ]
    return rows, passages, authors


def score(rows: list[dict], passages: list[Passage], mentions) -> tuple[dict, list[str]]:
    by_chunk: dict[str, list] = {}
    for m in mentions:
        by_chunk.setdefault(m.chunk_id, []).append(m)
    tally: dict[str, Counter] = {t: Counter() for t in ENTITY_TYPES}
    notes = []
    for row, passage in zip(rows, passages):
        gold = [(g["type"], {entity_key(a) for a in g["name"].split("|")}, g["name"]) for g in row["entities"]]
        predicted = {}
        for m in by_chunk.get(passage.chunk_id, []):  # one prediction per (entity, type) and passage
            predicted.setdefault(
                (entity_key(m.name), m.entity_type), {entity_key(m.name), entity_key(m.surface or m.name)}
            )
        matched_gold = set()
        for (key, kind), forms in sorted(predicted.items()):
            hit = next(
                (
                    i
                    for i, (t, accepted, _) in enumerate(gold)
                    if i not in matched_gold and t == kind and forms & accepted
                ),
                None,
            )
            tally[kind]["predicted"] += 1
            if hit is None:
                notes.append(f"{row['id']} FP {kind}:{key}")
            else:
                matched_gold.add(hit)
                tally[kind]["correct"] += 1
        for i, (kind, _, name) in enumerate(gold):
            tally[kind]["gold"] += 1
            if i not in matched_gold:
                notes.append(f"{row['id']} FN {kind}:{name}")
    return tally, notes


def rates(tally: dict[str, Counter]) -> dict[str, dict]:
    """Per entity type and for all: predicted, gold, correct, precision, recall (None where undefined)."""
    out, total = {}, Counter()
    for kind in (*ENTITY_TYPES, "all"):
        c = total if kind == "all" else tally[kind]
        if kind != "all":
            total.update(c)
        out[kind] = {
            "predicted": c["predicted"],
            "gold": c["gold"],
            "correct": c["correct"],
            "precision": round(c["correct"] / c["predicted"], 3) if c["predicted"] else None,
            "recall": round(c["correct"] / c["gold"], 3) if c["gold"] else None,
        }
    return out


def report(rows: dict[str, dict]) -> str:
    lines = [f"{'type':22} {'pred':>5} {'gold':>5} {'ok':>4} {'precision':>9} {'recall':>7}"]
    for kind, c in rows.items():
        p, r = (float("nan") if v is None else v for v in (c["precision"], c["recall"]))
        lines.append(f"{kind:22} {c['predicted']:5d} {c['gold']:5d} {c['correct']:4d} {p:9.3f} {r:7.3f}")
    return "\n".join(lines)


def main() -> None:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--model", help="a local GLiNER2 folder (default: the vocabulary extractor)")
    parser.add_argument("--verbose", action="store_true", help="list false positives and misses")
    args = parser.parse_args()
    rows, passages, authors = load_sample()
    extractor = load_extractor(args.model)
    mentions, relations = extractor.extract(passages, authors)
    figures = {"extractor": extractor.name, "passages": len(rows), "relations": len(relations), "splits": {}}
    lines = [f"extractor {extractor.name} · {len(rows)} passages · {len(relations)} relations"]
    for split in sorted({row["split"] for row in rows}, reverse=True) + ["all"]:
        chosen = [(r, p) for r, p in zip(rows, passages) if split in (r["split"], "all")]
        tally, notes = score([r for r, _ in chosen], [p for _, p in chosen], mentions)
        figures["splits"][split] = {"passages": len(chosen), "by_type": rates(tally)}
        lines.append(f"\n[{split}: {len(chosen)} passages]\n{report(figures['splits'][split]['by_type'])}")
        if args.verbose and split != "all":
            lines.append("\n".join(notes))
    harness.emit(args, figures, lines)


if __name__ == "__main__":
    main()
