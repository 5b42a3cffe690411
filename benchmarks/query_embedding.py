"""Query embedding latency: torch (transformers) vs ONNX Runtime, idle and beside a CPU hog.

    QUANT_RAG_HOME=<state with the ONNX export> python benchmarks/query_embedding.py [--queries 100] [--hog]

Arms: server-N (the token graph the server embeds questions with, vector and token vectors in one
run, on corpus.encoding.onnx_encoder.QUERY_THREADS threads), torch (the transformers QueryEncoder, torch's
default threads), torch-1 (one torch thread), onnx-1 / onnx-2 (the plain graph on ONNX Runtime
with 1 / 2 intra-op threads), onnx-int8 (when exported). Each
embeds the same TAT-QA questions once (no cache); p50/p95 in ms. --hog repeats every arm with
`python -c "while True: pass"` running, i.e. another program holding one of the cores.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import harness
from harness import cpu_hog, percentiles_ms

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "bench" / "tatqa" / "queries.jsonl"


def arms(home: Path) -> dict:
    from corpus.config import ServedConfig
    from corpus.encoding.embedder import model_folder
    from corpus.encoding.onnx_encoder import QUERY_THREADS, OnnxEncoder, onnx_file, token_graph_file
    from corpus.encoding.query_encoder import QueryEncoder
    from corpus.encoding.token_encoder import TokenEncoder
    from corpus.state.layout import StateLayout

    config, layout = ServedConfig(), StateLayout(home)
    folder = model_folder(config)
    out = {}
    tokens = token_graph_file(layout, config)
    if tokens.exists():
        out[f"server-{QUERY_THREADS}"] = TokenEncoder(
            tokens, folder, config.embedding_model, None, threads=QUERY_THREADS
        )
    plain = onnx_file(layout, config)
    if plain.exists():
        out["onnx-1"] = OnnxEncoder(plain, folder, config.embedding_model, None, threads=1)
        out["onnx-2"] = OnnxEncoder(plain, folder, config.embedding_model, None, threads=2)
    int8 = onnx_file(layout, ServedConfig(query_runtime="onnx-int8"))
    if int8.exists():
        out["onnx-int8"] = OnnxEncoder(int8, folder, config.embedding_model, None, threads=1)
    out["torch"] = QueryEncoder(folder, config.embedding_model, None)
    return out


def measure(encoder, queries: list[str], threads: int | None = None) -> dict:
    import torch

    saved = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    try:
        encoder.embed_query("warm up")
        times = []
        for text in queries:
            start = time.perf_counter()
            encoder.embed_query(text)
            times.append(time.perf_counter() - start)
    finally:
        torch.set_num_threads(saved)
    return percentiles_ms(times)


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__file__, __doc__, hog=True)
    parser.add_argument("--home", type=Path, default=Path(os.environ.get("QUANT_RAG_HOME", "./var")))
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args(argv)
    lines = QUESTIONS.read_text(encoding="utf-8").splitlines()[: args.queries]
    queries = [json.loads(line)["text"] for line in lines]
    encoders = arms(args.home.resolve())
    conditions = harness.conditions(args)
    report: dict = {"queries": len(queries), "cpus": os.cpu_count()}
    meter = harness.StealMeter()
    for condition in conditions:
        with cpu_hog(condition == "hog"):
            for name, encoder in encoders.items():
                report[f"{name} {condition}"] = measure(encoder, queries)
                if name == "torch":
                    report[f"torch-1 {condition}"] = measure(encoder, queries, threads=1)
    lines = [
        f"{len(queries)} queries, {report['cpus']} CPUs; ms per query embedding",
        f"{'arm':<12}" + "".join(f"{c + ' p50':>11}{c + ' p95':>11}" for c in conditions),
    ]
    for name in [k.split()[0] for k in report if k.endswith(" idle")]:
        lines.append(
            f"{name:<12}"
            + "".join(f"{report[f'{name} {c}']['p50']:>11.1f}{report[f'{name} {c}']['p95']:>11.1f}" for c in conditions)
        )
    harness.emit(args, report, lines, meter=meter)
    return 0


if __name__ == "__main__":
    sys.exit(main())
