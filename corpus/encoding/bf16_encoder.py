"""Passage embedding in bfloat16 on CPUs with native bfloat16 arithmetic (ingest time; torch).

Where the CPU has bfloat16 dot products in hardware (Intel AMX tiles, `amx_bf16`, or AVX-512
BF16, `avx512_bf16`, as on AMD Zen 4/5 and Intel Cooper Lake), oneDNN runs the model's matrix
products in bfloat16, well ahead of the float32 ONNX graph on AMX and still cheaper on AVX-512
BF16 alone (docs/measurements.md, Ingestion). Under `torch.autocast` the linear layers run in bfloat16 while
softmax, layer norm and the pooling stay float32, so the vectors stay within cosine 0.99996 of the
float32 ones (tested over a library slice) and share their key: the float runtimes are one family
of vectors (ServedConfig.model_key). Without either flag bfloat16 would be emulated and slower, so
`passage_runtime="auto"` chooses it only where one is present. Where torch sees a GPU, "auto" is
torch itself: the embedder then runs on the GPU (corpus.encoding.embedder.embedding_device).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from corpus.encoding.token_encoder import TokenEncoder
from corpus.model_folder.pooling import pool, pooling_of

CPUINFO = Path("/proc/cpuinfo")
BF16_FLAGS = frozenset({"amx_bf16", "avx512_bf16"})  # bfloat16 dot products in hardware


@lru_cache(maxsize=4)
def has_native_bf16(cpuinfo: Path = CPUINFO) -> bool:
    """True when the CPU advertises bfloat16 arithmetic in hardware, AMX tiles or AVX-512 BF16
    (Linux's /proc/cpuinfo; False elsewhere)."""
    try:
        text = cpuinfo.read_text()
    except OSError:
        return False
    return any(line.startswith("flags") and BF16_FLAGS & set(line.split()) for line in text.splitlines())


def resolved_passage_runtime(runtime: str) -> str:
    """The runtime `ServedConfig.passage_runtime` means on this machine: "auto" is torch on the
    GPU where torch sees one, else bfloat16 where the CPU has it in hardware, else the float32
    ONNX graph; any other value is itself."""
    from corpus.encoding.embedder import embedding_device

    if runtime != "auto":
        return runtime
    if embedding_device() == "cuda":
        return "torch"
    return "torch-bf16" if has_native_bf16() else "onnx"


class Bf16Encoder(TokenEncoder):
    """TokenEncoder's interface (`embed_texts`, `on_tokens`) over the torch model under bfloat16
    autocast: the same tokenisation, batching, pooling (the model's: corpus.model_folder.pooling) and
    normalisation as the ONNX graphs."""

    def __init__(self, folder: Path, model_id: str, threads: int, model=None):
        """`model`: the transformer already loaded from `folder` (the embedder's), shared rather
        than loaded twice (a 0.6B model takes gigabytes in float32)."""
        import torch
        from transformers import AutoModel

        self._load_tokenizer(folder, model_id, None)
        self._torch, self._threads = torch, threads
        self.model = (
            model if model is not None else AutoModel.from_pretrained(str(folder), local_files_only=True).eval()
        )
        self._segments = "token_type_ids" in self.model.forward.__code__.co_varnames
        self._pooling = pooling_of(folder) or "mean"
        self.model_file = folder
        self.dimension = int(self.embed_texts(["dimension probe"])[0].shape[0])
        self.encoded_texts = 0

    def _run(self, encodings) -> np.ndarray:
        return self._outputs(encodings)[0]

    def _outputs(self, encodings) -> tuple[np.ndarray, np.ndarray]:
        torch = self._torch
        ids = torch.tensor([e.ids for e in encodings])
        mask = torch.tensor([e.attention_mask for e in encodings])
        extra = {"token_type_ids": torch.tensor([e.type_ids for e in encodings])} if self._segments else {}
        previous = torch.get_num_threads()
        torch.set_num_threads(self._threads)
        try:
            with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
                hidden = self.model(input_ids=ids, attention_mask=mask, **extra).last_hidden_state
        finally:
            torch.set_num_threads(previous)
        hidden = hidden.float()
        pooled = pool(hidden, mask, self._pooling)
        return pooled.numpy(), torch.nn.functional.normalize(hidden, dim=-1).numpy()
