"""Ingestion embedding: which runtime and batching cost least, on a state's real pieces.

Pieces: --pieces of them (seeded sample) from the documents of --home, cut exactly as the
pipeline cuts them. Arms, same model, --threads threads each, interleaved --repeats times (best):
  torch_by_chars  sentence-transformers, batches ordered by characters (the former pipeline's batching)
  torch_by_tokens sentence-transformers, batches ordered by token count
  onnx_by_tokens  the float32 ONNX export on ONNX Runtime, ordered by token count (the pipeline's default)
  onnx_int8       its int8 graph (corpus.encoding.onnx_int8.quantise), ingestion's opt-in
                  (QUANT_RAG_PASSAGE_RUNTIME=onnx-int8)
  torch_bf16      torch under bfloat16 autocast (corpus.encoding.bf16_encoder), ordered by token count
Printed per arm: CPU seconds (user + sys: the machine is shared, so CPU, not wall, is the cost),
wall seconds, tokens computed (padding included) and the min cosine to torch_by_chars's vectors.

    python benchmarks/embedding_throughput.py --home var [--pieces 400] [--threads 2]
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

import harness
import numpy as np

from corpus.config import ServedConfig
from corpus.encoding.embedder import load_embedder, model_folder
from corpus.state.layout import StateLayout


def state_pieces(layout: StateLayout, embedder, count: int, seed: int = 7) -> list[str]:
    from ingest.indexes.embed import document_pieces

    texts = [t for d in layout.registered_document_ids() for t in document_pieces(layout, embedder, d).texts]
    return random.Random(seed).sample(texts, min(count, len(texts)))


def batched(texts: list[str], key, batch_size: int, encode) -> tuple[np.ndarray, list[list[int]]]:
    """Vectors in input order, batches formed longest first by `key`; also the batches' indices."""
    order = sorted(range(len(texts)), key=lambda i: -key(texts[i]))
    out, batches = None, []
    for start in range(0, len(order), batch_size):
        indices = order[start : start + batch_size]
        rows = encode([texts[i] for i in indices])
        out = np.empty((len(texts), rows.shape[1]), np.float32) if out is None else out
        out[indices] = rows
        batches.append(indices)
    return out, batches


def main() -> None:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--home", type=Path, default=None, help="an ingested state (default: QUANT_RAG_HOME)")
    parser.add_argument("--pieces", type=int, default=400)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    import torch

    from corpus.encoding.bf16_encoder import Bf16Encoder
    from corpus.encoding.onnx_encoder import OnnxEncoder
    from corpus.encoding.onnx_export import export_model
    from corpus.encoding.onnx_int8 import quantise

    torch.set_num_threads(args.threads)
    config = ServedConfig()
    embedder = load_embedder(config)
    layout = StateLayout(args.home) if args.home else StateLayout.from_env()
    texts = state_pieces(layout, embedder, args.pieces)
    graph = Path(tempfile.mkdtemp()) / "model.onnx"
    export_model(model_folder(config), graph)
    quantise(graph, graph.with_name("model.int8.onnx"), model_folder(config))
    runtimes = {
        name: OnnxEncoder(path, model_folder(config), embedder.model_id, None, threads=args.threads)
        for name, path in (("onnx", graph), ("int8", graph.with_name("model.int8.onnx")))
    }

    def torch_encode(batch):
        return embedder.model.encode(batch, batch_size=len(batch), normalize_embeddings=True, show_progress_bar=False)

    tokens = embedder.count_tokens
    arms = {
        "torch_by_chars": (len, torch_encode),
        "torch_by_tokens": (tokens, torch_encode),
        "onnx_by_tokens": (tokens, lambda b: runtimes["onnx"].embed_texts(b, len(b))),
        "onnx_int8": (tokens, lambda b: runtimes["int8"].embed_texts(b, len(b))),
    }
    bf16 = Bf16Encoder(model_folder(config), embedder.model_id, threads=args.threads)
    arms["torch_bf16"] = (tokens, lambda b: bf16.embed_texts(b, len(b)))
    batched(texts[:16], tokens, 16, torch_encode)  # warm-up
    steal = harness.StealMeter()
    best: dict[str, tuple[float, float]] = {}
    vectors: dict[str, np.ndarray] = {}
    computed: dict[str, int] = {}
    for _ in range(args.repeats):
        for arm, (key, encode) in arms.items():
            cpu, wall = time.process_time(), time.perf_counter()
            vectors[arm], batches = batched(texts, key, args.batch_size, encode)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            best[arm] = min(best.get(arm, (cpu, wall)), (cpu, wall))
            computed[arm] = sum(len(b) * max(min(tokens(texts[i]), embedder.max_tokens) for i in b) for b in batches)
    real = sum(min(tokens(t), embedder.max_tokens) for t in texts)
    figures = {
        "model": embedder.model_id,
        "pieces": len(texts),
        "tokens": real,
        "threads": args.threads,
        "batch_size": args.batch_size,
        "repeats": args.repeats,
        "arms": {},
    }
    lines = [
        f"model {embedder.model_id} · {len(texts)} pieces, {real} tokens · {args.threads} threads · "
        f"batches of {args.batch_size} · best of {args.repeats}"
    ]
    base = best["torch_by_chars"][0]
    for arm, (cpu, wall) in best.items():
        cosine = float((vectors[arm] * vectors["torch_by_chars"]).sum(axis=1).min())
        figures["arms"][arm] = {
            "cpu_s": round(cpu, 2),
            "wall_s": round(wall, 2),
            "tokens_computed": computed[arm],
            "min_cosine": round(cosine, 6),
        }
        lines.append(
            f"{arm:>16}: {cpu:7.2f} CPU-s ({cpu / base - 1:+6.1%})  {wall:7.2f} wall-s  "
            f"{computed[arm]:>8} tokens computed  min cosine {cosine:.6f}"
        )
    harness.emit(args, figures, lines, meter=steal)


if __name__ == "__main__":
    main()
