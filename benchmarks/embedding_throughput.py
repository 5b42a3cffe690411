"""What the project's embedding path costs over a bare `model.encode`, on real passages.

Passages: the bundled library's Markdown, paragraphs packed into ~1,200-character chunks (the
first --passages of them). Arms, same model, one torch thread, best CPU time of --repeats
interleaved runs:
  raw         model.encode(passages) — truncates whatever exceeds the window
  raw_pieces  model.encode(the strings passage_pieces produces) — every word reaches the model
  embedder    passage_pieces + Embedder.embed_passages (what the pipeline runs)
  onnx_pieces the same strings as raw_pieces through the ONNX export (ONNX Runtime, one thread)
Overhead of the wrapper = embedder vs raw_pieces; cost of keeping every word = raw_pieces vs raw;
ONNX vs torch for ingestion = onnx_pieces vs raw_pieces (and the min cosine between their vectors).

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/embedding_throughput.py
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from corpus.config import ServedConfig
from corpus.embedder import load_embedder, passage_pieces

LIBRARY = Path(__file__).resolve().parents[1] / "library" / "markdown"
CHUNK_CHARS = 1200


def library_passages(limit: int) -> list[tuple[str, str]]:
    """(prefix, text) pairs: the file's first heading as prefix, paragraphs packed to ~1,200 chars."""
    out: list[tuple[str, str]] = []
    for path in sorted(LIBRARY.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        title = next((line.lstrip("# ").strip() for line in text.splitlines() if line.startswith("#")), path.stem)
        buffer = ""
        for paragraph in (p.strip() for p in text.split("\n\n")):
            if buffer and len(buffer) + len(paragraph) > CHUNK_CHARS:
                out.append((title, buffer))
                buffer = ""
            buffer = f"{buffer}\n\n{paragraph}" if buffer else paragraph
        if buffer:
            out.append((title, buffer))
        if len(out) >= limit:
            break
    return out[:limit]


def cpu_seconds(function) -> float:
    """CPU time of this process: the machine is shared, so wall time measures the neighbours."""
    start = time.process_time()
    function()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)  # CPU time is then comparable across arms
    embedder = load_embedder(ServedConfig())
    model = embedder.model  # the bare SentenceTransformer, for the baseline arms
    passages = library_passages(args.passages)
    raw_texts = [f"{prefix}\n{text}" for prefix, text in passages]
    pieces = [piece for prefix, text in passages for piece in passage_pieces(embedder, prefix, text)]

    def encode(texts):
        return model.encode(texts, batch_size=args.batch_size, normalize_embeddings=True, show_progress_bar=False)

    def pipeline():
        strings = [piece for prefix, text in passages for piece in passage_pieces(embedder, prefix, text)]
        return embedder.embed_passages(strings, batch_size=args.batch_size)

    import tempfile

    from corpus.embedder import model_folder
    from corpus.onnx_encoder import OnnxEncoder
    from corpus.onnx_export import export_model

    graph = Path(tempfile.mkdtemp()) / "model.onnx"
    export_model(model_folder(ServedConfig()), graph)
    onnx = OnnxEncoder(graph, model_folder(ServedConfig()), embedder.model_id, None, threads=1)
    encode(raw_texts[:64])  # warm-up
    cosine = float((onnx.embed_texts(pieces, args.batch_size) * encode(pieces)).sum(axis=1).min())
    arms = {"raw": lambda: encode(raw_texts), "raw_pieces": lambda: encode(pieces), "embedder": pipeline,
            "onnx_pieces": lambda: onnx.embed_texts(pieces, args.batch_size)}
    runs: dict[str, list[float]] = {arm: [] for arm in arms}
    for _ in range(args.repeats):  # interleaved, best of each
        for arm, function in arms.items():
            runs[arm].append(cpu_seconds(function))
    timings = {arm: min(values) for arm, values in runs.items()}
    truncated = sum(embedder.count_tokens(t) > embedder.max_tokens for t in raw_texts)
    print(f"model {embedder.model_id} · window {embedder.max_tokens} tokens · torch threads "
          f"{torch.get_num_threads()} · {len(passages)} passages → {len(pieces)} pieces · "
          f"{truncated} passages truncated by the raw arm")
    for arm, seconds in timings.items():
        print(f"{arm:>10}: {len(passages) / seconds:7.1f} passages per CPU-second ({seconds:.2f} CPU-s)")
    wrapper = timings["embedder"] / timings["raw_pieces"] - 1
    every_word = timings["raw_pieces"] / timings["raw"] - 1
    total = timings["embedder"] / timings["raw"] - 1
    print(f"wrapper overhead (embedder vs raw_pieces): {wrapper:+.1%}")
    print(f"cost of keeping every word (raw_pieces vs raw): {every_word:+.1%}")
    print(f"total (embedder vs raw): {total:+.1%}")
    print(f"ONNX Runtime vs torch on the same pieces: {timings['onnx_pieces'] / timings['raw_pieces'] - 1:+.1%} "
          f"CPU time; min cosine {cosine:.6f}")


if __name__ == "__main__":
    main()
