"""Which int8 dynamic quantisation of the embedding export is fast and closest to float32.

Pieces: --pieces of them (seeded sample) from the documents of --home, cut exactly as the
pipeline cuts them. Every variant is built from a float32 export without fusions (the baseline,
`fp32`; the product's export is `fused_fp32`) and run by ONNX Runtime with --threads threads,
batches of 32; the arms are interleaved --repeats times (best). Printed per arm: CPU seconds
(user + sys: the machine is shared), CPU-ms per piece, wall seconds, and the mean / p1 / min
cosine of its vectors to the baseline's.

    python benchmarks/int8_variants.py --home var [--pieces 300] [--repeats 2] [--only a,b]
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import harness
import numpy as np

from corpus.config import ServedConfig
from corpus.encoding.embedder import load_embedder, model_folder
from corpus.encoding.onnx_encoder import OnnxEncoder
from corpus.encoding.onnx_export import export_model
from corpus.encoding.onnx_fusion import fuse
from corpus.state.layout import StateLayout


def _ffn_down(layers: range) -> list[str]:
    return [f"/inner/encoder/layer.{i}/output/dense/MatMul" for i in layers]


def _layer(i: int) -> list[str]:
    names = (
        "attention/self/query",
        "attention/self/key",
        "attention/self/value",
        "attention/output/dense",
        "intermediate/dense",
        "output/dense",
    )
    return [f"/inner/encoder/layer.{i}/{n}/MatMul" for n in names]


# name → quantize_dynamic keyword arguments (onnxruntime.quantization).
VARIANTS: dict[str, dict] = {
    "product": {"product": True},  # corpus.encoding.onnx_int8.quantise: ingestion's opt-in passage runtime
    "all_pc": {"per_channel": True},  # the query arm's recipe before (MatMul and Gather quantised)
    "matmul_pc": {"per_channel": True, "op_types_to_quantize": ["MatMul"]},
    "matmul_pc_rr": {"per_channel": True, "reduce_range": True, "op_types_to_quantize": ["MatMul"]},
    "matmul_pt_rr": {"reduce_range": True, "op_types_to_quantize": ["MatMul"]},
    "matmul_pc_u8": {"per_channel": True, "op_types_to_quantize": ["MatMul"], "weight_type": "QUInt8"},
    "matmul_pc_rr_noffn": {
        "per_channel": True,
        "reduce_range": True,
        "op_types_to_quantize": ["MatMul"],
        "nodes_to_exclude": _ffn_down(range(6)),
    },
    "matmul_pc_rr_noends": {
        "per_channel": True,
        "reduce_range": True,
        "op_types_to_quantize": ["MatMul"],
        "nodes_to_exclude": _layer(0) + _layer(5),
    },
    "matmul_pc_noffn": {
        "per_channel": True,
        "op_types_to_quantize": ["MatMul"],
        "nodes_to_exclude": _ffn_down(range(6)),
    },
    # onnxruntime.transformers' BERT fusions first (fused Attention, SkipLayerNorm, BiasGelu).
    "fused_fp32": {"fused": True, "float": True},
    "fused_pc_noffn": {
        "fused": True,
        "per_channel": True,
        "op_types_to_quantize": ["MatMul", "Attention"],
        "nodes_to_exclude": _ffn_down(range(6)),
    },
    "fused_pc": {"fused": True, "per_channel": True, "op_types_to_quantize": ["MatMul", "Attention"]},
}


def build(source: Path, target: Path, options: dict) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    options = dict(options)
    if options.pop("product", False):
        from corpus.encoding.onnx_int8 import quantise

        return quantise(source, target, model_folder(ServedConfig()))
    if options.pop("fused", False):
        fuse(source, target, model_folder(ServedConfig()))
        source = target
        if options.pop("float", False):
            return
        import onnx

        options["extra_options"] = {"DefaultTensorType": onnx.TensorProto.FLOAT}
    options["weight_type"] = getattr(QuantType, options.pop("weight_type", "QInt8"))
    quantize_dynamic(str(source), str(target), **options)


def main() -> None:
    from embedding_throughput import state_pieces  # the script's folder is on sys.path

    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--home", type=Path, default=None, help="an ingested state (default: QUANT_RAG_HOME)")
    parser.add_argument("--pieces", type=int, default=300)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--only", default="", help="comma-separated variant names (default: all)")
    args = parser.parse_args()
    config = ServedConfig()
    layout = StateLayout(args.home) if args.home else StateLayout.from_env()
    embedder = load_embedder(config)
    texts = state_pieces(layout, embedder, args.pieces)
    folder = Path(tempfile.mkdtemp())
    plain = folder / "model.onnx"  # the unfused export, every variant's source and the baseline
    export_model(model_folder(config), plain, fused=False)
    names = [n for n in args.only.split(",") if n] or list(VARIANTS)
    graphs = {"fp32": plain}
    for name in names:
        graphs[name] = folder / f"{name}.onnx"
        build(plain, graphs[name], VARIANTS[name])
    encoders = {
        name: OnnxEncoder(path, model_folder(config), config.embedding_model, None, threads=args.threads)
        for name, path in graphs.items()
    }
    encoders["fp32"].embed_texts(texts[:16])  # warm-up
    best: dict[str, tuple[float, float]] = {}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(args.repeats):
        for name, encoder in encoders.items():
            cpu, wall = time.process_time(), time.perf_counter()
            vectors[name] = encoder.embed_texts(texts)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            best[name] = min(best.get(name, (cpu, wall)), (cpu, wall))
    figures = {"pieces": len(texts), "threads": args.threads, "repeats": args.repeats, "variants": {}}
    lines = [f"{len(texts)} pieces · {args.threads} threads · best of {args.repeats}"]
    base = best["fp32"][0]
    for name, (cpu, wall) in best.items():
        cosines = (vectors[name] * vectors["fp32"]).sum(axis=1)
        row = {
            "cpu_s": round(cpu, 2),
            "cpu_ms_per_piece": round(cpu / len(texts) * 1000, 1),
            "wall_s": round(wall, 2),
            "cosine_mean": round(float(cosines.mean()), 5),
            "cosine_p1": round(harness.percentile(cosines, 1), 5),
            "cosine_min": round(float(cosines.min()), 5),
        }
        figures["variants"][name] = row
        lines.append(
            f"{name:>20}: {cpu:7.2f} CPU-s ({cpu / base - 1:+6.1%}) "
            f"{row['cpu_ms_per_piece']:6.1f} CPU-ms/piece {wall:7.2f} wall-s  "
            f"cosine mean {row['cosine_mean']:.5f} p1 {row['cosine_p1']:.5f} min {row['cosine_min']:.5f}"
        )
    harness.emit(args, figures, lines)


if __name__ == "__main__":
    main()
