"""What Qwen3-Embedding-0.6B's architecture costs on this CPU, without its weights: a randomly
initialised Qwen3Model of the same shapes (28 layers, hidden 1024, 16 heads, 8 key-value heads),
run in float32 and under bfloat16 autocast (corpus.encoding.bf16_encoder's passage runtime). Prints the
parameter count, passage throughput (tokens per second, batches of 8 × 256 tokens), one 32-token
query's latency (median of 5) and the process's peak memory, then the host line.

    python benchmarks/bigger_model_cost.py [--threads 2]
"""

from __future__ import annotations

import harness

SHAPES = dict(
    vocab_size=151669,
    hidden_size=1024,
    intermediate_size=3072,
    num_hidden_layers=28,
    num_attention_heads=16,
    num_key_value_heads=8,
    head_dim=128,
    max_position_embeddings=32768,
    tie_word_embeddings=True,
)


def main() -> None:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    import torch
    from transformers import Qwen3Config, Qwen3Model

    steal = harness.StealMeter()
    torch.set_num_threads(args.threads)
    model = Qwen3Model(Qwen3Config(**SHAPES)).eval()
    params = sum(p.numel() for p in model.parameters())
    figures = {"parameters_m": round(params / 1e6), "float32_weights_gb": round(params * 4 / 1e9, 2)}
    lines = [f"parameters {figures['parameters_m']} M, float32 weights {figures['float32_weights_gb']:.2f} GB"]

    def seconds(batch: int, length: int, bf16: bool) -> float:
        ids = torch.randint(0, SHAPES["vocab_size"] - 1, (batch, length))
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            return harness.timed(model, input_ids=ids, attention_mask=torch.ones_like(ids))[1]

    for bf16 in (False, True):
        seconds(2, 64, bf16)  # warm-up
        best = min(seconds(8, 256, bf16) for _ in range(2))
        query = harness.percentile([seconds(1, 32, bf16) for _ in range(5)], 50)
        dtype = "bfloat16" if bf16 else "float32"
        figures[dtype] = {"passage_tokens_per_s": round(8 * 256 / best), "query_32_tokens_ms": round(query * 1000)}
        lines.append(f"{dtype:<8}: passages {8 * 256 / best:.0f} tokens/s, one 32-token query {query * 1000:.0f} ms")
    figures["peak_rss_gb"] = round(harness.peak_rss_mb() / 1024, 2)
    lines.append(f"peak memory {figures['peak_rss_gb']:.2f} GiB")
    harness.emit(args, figures, lines, meter=steal)


if __name__ == "__main__":
    main()
