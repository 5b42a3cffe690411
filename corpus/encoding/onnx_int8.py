"""The int8 graph of the embedding export (recipe corpus.versions.INT8_RECIPE): ingestion embeds
passages with it when asked (QUANT_RAG_PASSAGE_RUNTIME=onnx-int8; the default is float32, since
an int8 vector depends slightly on its batch); queries stay float32.

Chosen on the library's pieces by benchmarks/int8_variants.py and on retrieval
(docs/measurements.md, "Ingestion"): quantising every linear layer loses more than it saves.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from corpus.encoding.onnx_fusion import fuse

log = logging.getLogger(__name__)


# A transformer layer's feed-forward output projection, as torch.onnx names it (BERT family).
FFN_OUTPUT = re.compile(r"/layer\.\d+/output/dense/MatMul$")


def _no_preprocessing_advice(record: logging.LogRecord) -> bool:
    # quantize_dynamic advises shape-inference pre-processing on the root logger at every call;
    # the fusions above already are that step, and an ingest's output should not carry it.
    return not record.getMessage().startswith("Please consider to run pre-processing")


def quantise(source: Path, target: Path, folder: Path) -> None:
    """The int8 graph (recipe INT8_RECIPE) of the float32 export `source` of the model
    in `folder`, written atomically. BERT fusions first, then dynamic int8 quantisation, per
    channel, of the attention and of every linear layer except each layer's feed-forward output,
    whose input (after GELU) is heavy-tailed: quantised per tensor it costs most of the accuracy.
    Quantising those too saves a little more CPU and loses retrieval; the recipes are compared by
    benchmarks/int8_variants.py (docs/measurements.md, Ingestion). Activations get one scale per
    tensor, i.e. per batch: a piece's vector depends a little on the pieces it is embedded with, as
    much as on quantisation itself; a run's batches are deterministic."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    fused = target.with_name(f".{target.name}.fused.tmp")
    tmp = target.with_name(f".{target.name}.tmp")
    root = logging.getLogger()
    root.addFilter(_no_preprocessing_advice)
    try:
        graph = fused if fuse(source, fused, folder) else source  # a no-op on a fused export
        names = [n.name for n in onnx.load(str(graph), load_external_data=False).graph.node if n.op_type == "MatMul"]
        ffn_out = [n for n in names if FFN_OUTPUT.search(n)]
        if not ffn_out:
            log.warning(
                "no feed-forward output layer named like %s in %s: all of it is quantised", FFN_OUTPUT.pattern, graph
            )
        quantize_dynamic(
            str(graph),
            str(tmp),
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul", "Attention"],
            nodes_to_exclude=ffn_out,
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
        os.replace(tmp, target)
    finally:
        root.removeFilter(_no_preprocessing_advice)
        tmp.unlink(missing_ok=True)
        fused.unlink(missing_ok=True)
