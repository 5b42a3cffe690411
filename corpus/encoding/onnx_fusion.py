"""onnxruntime.transformers' BERT fusions of an exported graph (one Attention op per layer, fused
layer norms and GELU): same vectors, less CPU. Used on the float32 exports (corpus.encoding.onnx_export)
and before int8 quantisation (corpus.encoding.onnx_int8). The saving and the equality of the vectors
are measured by `python benchmarks/int8_variants.py --only fused_fp32` (docs/measurements.md, Ingestion).
"""

from __future__ import annotations

import json
from pathlib import Path

# In the export's sidecar (corpus.encoding.onnx_export): a graph written by an older recipe is exported again.
GRAPH_RECIPE = "bert-fused-v1"
# The producer name the optimizer writes into a graph it fused.
FUSED_PRODUCER = "onnxruntime.transformers"


def fuse(source: Path, target: Path, folder: Path) -> bool:
    """Write the fused graph of `source` (exported from the model in `folder`) to `target`; False,
    with nothing written, for an architecture other than BERT's or a graph already fused."""
    import onnx
    from onnxruntime.transformers.optimizer import optimize_model

    settings = json.loads((folder / "config.json").read_text())
    if (
        settings.get("model_type") != "bert"
        or onnx.load(str(source), load_external_data=False).producer_name == FUSED_PRODUCER
    ):
        return False
    optimize_model(
        str(source),
        model_type="bert",
        num_heads=int(settings["num_attention_heads"]),
        hidden_size=int(settings["hidden_size"]),
        opt_level=0,
    ).save_model_to_file(str(target))
    return True
