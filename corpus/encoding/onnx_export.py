"""Export the embedding model to ONNX (ingest time; needs torch): the server then runs it torch-free.

The exported graph is transformer → pooling (mean, first or last token: corpus.model_folder.pooling) → L2
normalisation, the whole sentence-transformers pipeline of such a model, so ONNX Runtime returns
final vectors. A decoder embedder (Qwen3-Embedding) is exported with last-token pooling; a model
whose float32 weights pass protobuf's two-gigabyte limit (Qwen3-Embedding-0.6B) is not exported
and embeds with torch (ingest_runtime logs why). Writes are atomic; a sidecar records which weights
the export came from, so changed weights under the same model key are exported again.
"""

from __future__ import annotations

import inspect
import logging
import os
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from corpus.config import ServedConfig
from corpus.encoding.onnx_encoder import (
    INPUTS,
    INT8_SUFFIX,
    caller_graph_file,
    onnx_file,
    passage_file,
    token_graph_file,
)
from corpus.encoding.onnx_fusion import GRAPH_RECIPE, fuse
from corpus.encoding.onnx_int8 import quantise
from corpus.model_folder.pooling import pool, pooling_of
from corpus.state.layout import StateLayout, atomic_write_json, read_json

log = logging.getLogger(__name__)

OPSET = 17
# protobuf's limit on one serialised graph, less room for the graph itself.
ONNX_MAX_WEIGHT_BYTES = (2 << 30) - (64 << 20)
WEIGHT_FILES = ("*.safetensors", "*.bin")
HALF_DTYPES = {"bfloat16", "float16"}
SOURCE_FILE = "source.json"
TOKEN_SOURCE_FILE = "tokens.source.json"


def _source(folder: Path) -> dict:
    """Identity of the weights an export came from (path, and size and mtime of each file) and of
    the recipe that wrote it."""
    files = sorted(p for p in folder.iterdir() if p.is_file())
    return {
        "folder": str(folder.resolve()),
        "graph": GRAPH_RECIPE,
        "files": {p.name: [p.stat().st_size, int(p.stat().st_mtime)] for p in files},
    }


def float32_weight_bytes(folder: Path) -> int:
    """Bytes the model's weights take in float32 (a half-precision checkpoint doubles)."""
    settings = read_json(folder / "config.json") if (folder / "config.json").exists() else {}
    size = sum(p.stat().st_size for pattern in WEIGHT_FILES for p in folder.glob(pattern))
    half = (settings.get("torch_dtype") or settings.get("dtype")) in HALF_DTYPES
    return size * 2 if half else size


def onnx_refusal(folder: Path) -> str | None:
    """Why the model in `folder` has no ONNX export (None: it has one)."""
    if pooling_of(folder) is None:
        return "its sentence-transformers modules are not Transformer → mean/CLS/last-token Pooling → Normalize"
    size = float32_weight_bytes(folder)
    if size > ONNX_MAX_WEIGHT_BYTES:
        return f"its float32 weights ({size / 1e9:.1f} GB) pass the 2 GiB limit of one ONNX graph"
    return None


def export_model(folder: Path, target: Path, tokens: bool = False, fused: bool = True) -> None:
    """Write the float32 ONNX graph of the model in `folder` to `target` (atomically), BERT's
    fusions applied unless not `fused` (corpus.encoding.onnx_fusion: the same vectors for less CPU). With
    `tokens`, the graph has a second output: every token's last-layer vector, L2-normalised
    (corpus.indexes.token_index scores passages by them); the first output is the same pooled vector."""
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(folder), local_files_only=True, attn_implementation="eager").eval()
    pooling = pooling_of(folder) or "mean"
    inputs = [name for name in INPUTS if name in inspect.signature(model.forward).parameters]

    class Pooled(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids=None):
            segments = {} if token_type_ids is None else {"token_type_ids": token_type_ids}
            hidden = self.inner(input_ids=input_ids, attention_mask=attention_mask, **segments).last_hidden_state
            pooled = pool(hidden, attention_mask, pooling)
            return (pooled, torch.nn.functional.normalize(hidden, dim=-1)) if tokens else pooled

    sample = torch.ones(2, 8, dtype=torch.long)
    outputs = ["embedding", "tokens"] if tokens else ["embedding"]
    axes = {name: {0: "batch", 1: "tokens"} for name in inputs}
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    fused_file = Path(f"{tmp}.fused")
    try:
        # The tracer warns about the attention mask's Python branch and negative gather indices;
        # neither applies to this fixed graph, and the parity test proves the vectors equal.
        with torch.inference_mode(False), torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore", category=UserWarning)
            warnings.simplefilter("ignore", category=torch.jit.TracerWarning)
            warnings.simplefilter("ignore", category=DeprecationWarning)  # the TorchScript exporter's notice
            torch.onnx.export(
                Pooled(model),
                (sample, sample, torch.zeros_like(sample))[: len(inputs)],
                tmp,
                input_names=inputs,
                output_names=outputs,
                dynamic_axes={
                    **axes,
                    "embedding": {0: "batch"},
                    **({"tokens": {0: "batch", 1: "tokens"}} if tokens else {}),
                },
                opset_version=OPSET,
                dynamo=False,
            )
        os.replace(fused_file if fused and fuse(Path(tmp), fused_file, folder) else tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
        fused_file.unlink(missing_ok=True)


def ensure_exported(layout: StateLayout, config: ServedConfig) -> Path | None:
    """Export, and quantise when the query or the passage runtime is int8, unless an export of
    the same weights exists. Returns the graph the server will load, or None for models the ONNX
    path does not cover."""
    from corpus.encoding.embedder import model_folder

    folder = model_folder(config)
    if onnx_refusal(folder) is not None:
        return None
    plain = layout.onnx_model(config.weights_key)
    sidecar = plain.parent / SOURCE_FILE
    source = _source(folder)
    fresh = plain.exists() and sidecar.exists() and read_json(sidecar) == source
    if not fresh:
        log.info("exporting %s to ONNX at %s", config.embedding_model, plain)
        export_model(folder, plain)
        atomic_write_json(sidecar, source)
    for other in plain.parent.glob(f"{plain.stem}.*.onnx"):  # older weights or an older recipe
        if not fresh or not other.name.endswith(INT8_SUFFIX):
            other.unlink(missing_ok=True)
    wanted = onnx_file(layout, config)
    for graph in {wanted, passage_file(layout, config)}:
        if not graph.exists():
            quantise(plain, graph, folder)
    return wanted


def ensure_token_graph(layout: StateLayout, config: ServedConfig) -> Path | None:
    """The two-output graph (pooled vector, token vectors) of corpus.encoding.token_encoder, exported
    unless an export of the same weights exists; None for models the ONNX path does not cover."""
    from corpus.encoding.embedder import model_folder

    folder = model_folder(config)
    if onnx_refusal(folder) is not None:
        return None
    graph = token_graph_file(layout, config)
    sidecar = graph.with_name(TOKEN_SOURCE_FILE)
    source = _source(folder)
    if not (graph.exists() and sidecar.exists() and read_json(sidecar) == source):
        log.info("exporting %s with token outputs to %s", config.embedding_model, graph)
        export_model(folder, graph, tokens=True)
        atomic_write_json(sidecar, source)
    return graph


def ensure_query_graphs(layout: StateLayout, config: ServedConfig) -> Path | None:
    """Every graph the server loads, fresh: the query graph and, with late interaction, the token
    graph that then embeds queries (without this an ingest with nothing new to embed left an
    older recipe's token graph in place) and the graph of the caller's inputs. Returns
    ensure_exported's graph."""
    wanted = ensure_exported(layout, config)
    if wanted is not None and config.late_interaction:
        tokens = ensure_token_graph(layout, config)
        if tokens is not None:
            ensure_caller_graph(layout, config, tokens)
    return wanted


def ensure_caller_graph(layout: StateLayout, config: ServedConfig, tokens: Path) -> Path:
    """The graph a caller's rephrasings and hypothetical passage are embedded with: with
    `caller_runtime` "onnx-int8" the token graph `tokens` quantised (corpus.encoding.onnx_int8),
    redone when the token graph is newer; any other quantisation of it is removed."""
    from corpus.encoding.embedder import model_folder

    caller = caller_graph_file(layout, config)
    for other in tokens.parent.glob(f"{tokens.stem}.*.onnx"):  # an older recipe, or older weights
        if other != caller or other.stat().st_mtime_ns < tokens.stat().st_mtime_ns:
            other.unlink(missing_ok=True)
    if caller != tokens and not caller.exists():
        log.info("quantising the token graph for callers' inputs to %s", caller)
        quantise(tokens, caller, model_folder(config))
    return caller


# Threads of the ingestion encoder: a batch of passages keeps both cores busy (unlike one query).
INGEST_THREADS = 2


class PassageRuntimeError(RuntimeError):
    """Passages cannot be embedded the way ServedConfig.passage_runtime says."""


def _transformer_of(embedder):
    """The embedder's loaded transformer (sentence-transformers' first module), or None."""
    try:
        return embedder.model[0].auto_model
    except (AttributeError, IndexError, TypeError):
        return None


def _passage_encoder(layout: StateLayout, config: ServedConfig, folder: Path, runtime: str, model=None):
    """The encoder of `runtime`; for float32 or bfloat16 with late interaction, one that also gives
    token vectors, sent to the token cache as each batch is embedded (one model run for both:
    ingest.indexes.token_index then finds them cached). The float32 one is the token graph, whose pooled
    vectors are the plain export's. `model`: the embedder's transformer, which bfloat16 shares."""
    from corpus.encoding.bf16_encoder import Bf16Encoder
    from corpus.encoding.onnx_encoder import OnnxEncoder
    from corpus.encoding.token_cache import TokenCache
    from corpus.encoding.token_encoder import TokenEncoder

    encoder: Bf16Encoder | TokenEncoder | None = None
    if runtime == "torch-bf16":
        encoder = Bf16Encoder(folder, config.embedding_model, threads=INGEST_THREADS, model=model)
    elif runtime == "onnx" and config.late_interaction:
        graph = ensure_token_graph(layout, config)
        if graph is not None:
            encoder = TokenEncoder(graph, folder, config.embedding_model, None, threads=INGEST_THREADS)
    if encoder is None:
        return OnnxEncoder(passage_file(layout, config), folder, config.embedding_model, None, threads=INGEST_THREADS)
    if config.late_interaction:
        encoder.on_tokens = TokenCache(layout, config.weights_key).put_many
    return encoder


@contextmanager
def ingest_runtime(embedder, layout: StateLayout, config: ServedConfig) -> Iterator[str]:
    """Within the block, `embedder` embeds passages (two threads) the way `config.passage_runtime`
    says on this machine (corpus.encoding.bf16_encoder.resolved_passage_runtime): in bfloat16 (the default
    where the CPU has it in hardware: AMX tiles or AVX-512 BF16), or on ONNX Runtime with the
    float32 export (the default elsewhere; less CPU than torch, the same vectors to six decimals of
    cosine) or, when asked, the int8 one; exported now if needed (vector_index then finds it
    fresh); torch itself where torch sees a GPU (the embedder runs there). Any pooling of
    corpus.model_folder.pooling is covered. Yields the runtime used. A float runtime that fails leaves torch
    (the same vectors, only slower); int8 does not fall back: its vectors are keyed as int8
    (ServedConfig.model_key), so that failure is raised. The shared embedder is torch again after."""
    from corpus.encoding.bf16_encoder import resolved_passage_runtime
    from corpus.encoding.embedder import model_folder

    wanted = resolved_passage_runtime(config.passage_runtime)
    runtime, reason = "torch", "the ONNX path does not cover this model"
    if wanted != "torch":
        try:
            folder = model_folder(config)
            reason = onnx_refusal(folder) or reason
            plain = (
                pooling_of(folder) is not None
                if wanted == "torch-bf16"
                else ensure_exported(layout, config) is not None
            )
            if plain:
                encoder = _passage_encoder(layout, config, folder, wanted, _transformer_of(embedder))
                embedder.run_passages_on(encoder)
                runtime = wanted
        except Exception as exc:  # noqa: BLE001 — float32: torch embeds the same vectors, only slower
            reason = str(exc)
        if runtime != wanted and wanted == "onnx-int8":
            raise PassageRuntimeError(
                f"cannot embed passages in int8 ({reason}); unset "
                f"QUANT_RAG_PASSAGE_RUNTIME to embed float vectors (the default)"
            )
        if runtime != wanted:
            log.warning("%s unavailable for ingestion (%s); embedding passages with torch in float32", wanted, reason)
    try:
        yield runtime
    finally:
        embedder.run_passages_on(None)
