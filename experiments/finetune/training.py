"""Contrastive fine-tuning: in-batch negatives plus one BM25 hard negative per query.

For a batch of B triples the loss is the cross-entropy of each query against the B positives and
B hard negatives (cosine × SCALE), its own positive being the target — the MultipleNegativesRanking
objective, written as a plain torch loop (no `datasets`/`accelerate` here). AdamW with a linear
warm-up and decay, gradients clipped. Seeded: the same triples and settings give the same weights
on the same machine. The tuned folder keeps the base folder's files with new weights, so the
project's loader (`corpus.encoding.embedder`) and the ONNX export read it like any local model folder.
"""

from __future__ import annotations

import random
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from experiments.finetune.negatives import TrainingTriple


class _OnePositive(Protocol):
    @property
    def chunk_id(self) -> str:
        """The positive's passage."""


Example = TypeVar("Example", bound=_OnePositive)

NOT_COPIED = (
    "*.safetensors",
    "*.bin",
    "*.onnx",
    "onnx",
    "openvino",
    "README.md",
    ".gitattributes",
    "data_config.json",
    ".git",
    ".cache",
)
SCALE = 20.0  # 1 / temperature of the softmax over cosines (sentence-transformers' MNRL default)


@dataclass(frozen=True)
class TrainSettings:
    # Measured on the 2-core machine under load: one thread costs half the CPU seconds of two
    # (8.5 vs 17 per step), and freezing the lowest 3 of 6 layers 5.0 instead of 8.5.
    steps: int = 80
    batch_size: int = 16
    learning_rate: float = 5e-5
    warmup_share: float = 0.1
    max_tokens: int = 128  # training window; the saved model keeps the base window
    frozen_layers: int = 3  # lowest transformer layers left untouched (cheaper backward)
    threads: int = 1  # torch threads for training and validation
    seed: int = 13


@dataclass
class TrainReport:
    steps: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    losses: list[float] = field(default_factory=list)


def batches(triples: list[Example], settings: TrainSettings) -> list[list[Example]]:
    """settings.steps batches from seeded passes over the triples; within a batch no passage is
    the positive of two queries (it would be a false in-batch negative for one of them)."""
    rng = random.Random(settings.seed)
    out: list[list[Example]] = []
    pending: list[Example] = []
    while len(out) < settings.steps and triples:
        if not pending:
            pending = list(triples)
            rng.shuffle(pending)
        batch: list[Example] = []
        used: set[str] = set()
        left: list[Example] = []
        for t in pending:
            if len(batch) < settings.batch_size and t.chunk_id not in used:
                batch.append(t)
                used.add(t.chunk_id)
            else:
                left.append(t)
        pending = left
        out.append(batch)
    return out


def _freeze(model, layers: int) -> None:
    bert = model[0].auto_model
    for parameter in bert.embeddings.parameters():
        parameter.requires_grad = layers <= 0 and parameter.requires_grad
    for layer in bert.encoder.layer[: max(layers, 0)]:
        for parameter in layer.parameters():
            parameter.requires_grad = False


def train(model, triples: list[TrainingTriple], settings: TrainSettings) -> TrainReport:
    """Fine-tune `model` (a SentenceTransformer, modified in place) on `triples`."""
    import torch

    torch.manual_seed(settings.seed)
    plan = batches(triples, settings)
    base_window = model.max_seq_length
    model.max_seq_length = settings.max_tokens
    _freeze(model, settings.frozen_layers)
    optimiser, schedule = optimiser_with_schedule(model, settings.learning_rate, len(plan), settings.warmup_share)
    report = TrainReport()
    start, cpu = time.perf_counter(), time.process_time()
    model.train()
    try:
        for batch in plan:
            queries = model(model.preprocess([t.query for t in batch]))["sentence_embedding"]
            docs = model(model.preprocess([t.positive for t in batch] + [t.negative for t in batch]))[
                "sentence_embedding"
            ]
            scores = torch.nn.functional.normalize(queries, dim=-1) @ torch.nn.functional.normalize(docs, dim=-1).T
            loss = torch.nn.functional.cross_entropy(scores * SCALE, torch.arange(len(batch)))
            take_step(loss, optimiser, schedule, report)
    finally:
        model.eval()
        model.max_seq_length = base_window
        for parameter in model.parameters():
            parameter.requires_grad = True
    report.seconds = time.perf_counter() - start
    report.cpu_seconds = time.process_time() - cpu
    return report


def save_model(model, base_folder: Path, folder: Path) -> None:
    """The base folder's own files (modules.json, window, pooling, tokenizer) with the tuned
    transformer weights. sentence-transformers 6's `save` would write its new module layout and
    no `max_seq_length`, which the project's ONNX and query paths do not read as the same
    architecture (and a 512-token window would cut passages into other pieces than the base)."""
    shutil.copytree(base_folder, folder, ignore=shutil.ignore_patterns(*NOT_COPIED))
    model[0].auto_model.save_pretrained(str(folder), safe_serialization=True)


def optimiser_with_schedule(model, learning_rate: float, steps: int, warmup_share: float):
    """AdamW over the trainable parameters, with a linear warm-up over `warmup_share` of the steps
    and a linear decay to zero after it (shared by the bi-encoder and the cross-encoder)."""
    import torch

    params = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(params, lr=learning_rate, weight_decay=0.01)
    warmup = max(1, int(steps * warmup_share))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup)))
    )
    return optimiser, schedule


def take_step(loss, optimiser, schedule, report: TrainReport) -> None:
    """One optimisation step on `loss` (gradients clipped at norm 1), recorded in `report`."""
    import torch

    loss.backward()
    torch.nn.utils.clip_grad_norm_(optimiser.param_groups[0]["params"], 1.0)
    optimiser.step()
    schedule.step()
    optimiser.zero_grad(set_to_none=True)
    report.losses.append(float(loss.detach()))
    report.steps += 1
