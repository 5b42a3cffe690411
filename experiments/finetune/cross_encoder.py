"""A cross-encoder reranker trained on the library's mined pairs: [query, passage] → one logit.

Starts from the packaged MiniLM with a new one-logit head (BertForSequenceClassification). Each
training query is scored with its positive, its BM25 hard negatives (`negatives.hard_negatives`)
and one random negative (the next query's positive in the batch, never its own passage); the loss
is the cross-entropy of the softmax over that group, the positive being the target (listwise).
The saved folder is a plain Hugging Face sequence-classification model plus tokenizer, which
`sentence_transformers.CrossEncoder(path)` — the engine's rerank path — loads as is.

Measured (experiments/finetune_reranker.py): tried, not kept. Within the budget (55 steps, 412
training CPU s) the listwise loss stays near ln 3 (1.09 → 1.08): MiniLM was trained as a
bi-encoder, and its new head does not learn to read [query, passage] pairs in 440 queries; the
rerank loses on held-out documents at every depth and blend weight, and on the library dev set.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path

from experiments.finetune.negatives import TrainingTriple
from experiments.finetune.training import (
    TrainReport,
    TrainSettings,
    batches,
    optimiser_with_schedule,
    take_step,
)

SERVED_WINDOW = 256  # tokens of [query, passage] the saved model reads (MiniLM's window)


@dataclass(frozen=True)
class RerankSettings:
    # Measured on the 2-core machine under load, 1 thread, 8 queries x 4 passages at 256 tokens:
    # 23 CPU s a step (192 tokens: 14). Hence 192 tokens, 1 hard + 1 random negative, the lowest
    # 2 of 6 layers frozen, and a CPU-second cap (the 15 CPU minutes, with room to validate).
    steps: int = 55  # what 480 CPU s allow at 192 tokens (about 8 CPU s a step)
    queries_per_batch: int = 8
    hard_negatives: int = 1  # BM25 negatives per query (plus one random in-batch negative)
    learning_rate: float = 5e-4  # a new head and few steps (1e-4 left the loss at ln 3 too)
    warmup_share: float = 0.1
    max_tokens: int = 192  # training window of the [query, passage] pair
    frozen_layers: int = 2  # lowest transformer layers (and embeddings) left untouched
    max_cpu_seconds: float = 480.0
    threads: int = 1
    seed: int = 13


@dataclass(frozen=True)
class Group:
    query: str
    positive: str
    negatives: tuple[str, ...]
    chunk_id: str  # the positive's passage (batches never hold it twice)


def groups(triples: list[TrainingTriple], hard_negatives: int) -> list[Group]:
    """Triples of the same (query, passage) merged into one group, in first-seen order; a group
    keeps at most `hard_negatives` negatives and needs at least one."""
    merged: dict[tuple[str, str], list[TrainingTriple]] = {}
    for t in triples:
        merged.setdefault((t.query, t.chunk_id), []).append(t)
    return [
        Group(rows[0].query, rows[0].positive, tuple(t.negative for t in rows[:hard_negatives]), rows[0].chunk_id)
        for rows in merged.values()
    ]


def load_base(folder: Path):
    """(model, tokenizer): the folder's transformer with a new, seeded one-logit head."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model = AutoModelForSequenceClassification.from_pretrained(str(folder), num_labels=1, local_files_only=True)
    return model, AutoTokenizer.from_pretrained(str(folder), local_files_only=True)


def group_loss(model, tokenizer, batch: list[Group], max_tokens: int):
    """Mean cross-entropy of each group's softmax (positive first, then its negatives and the next
    group's positive); groups are padded to the same width by repeating their last negative."""
    import torch

    width = 1 + max(len(g.negatives) for g in batch) + (len(batch) > 1)
    queries, passages = [], []
    for i, g in enumerate(batch):
        texts = [g.positive, *g.negatives] + ([batch[(i + 1) % len(batch)].positive] if len(batch) > 1 else [])
        texts += [texts[-1]] * (width - len(texts))
        queries += [g.query] * width
        passages += texts
    encoded = tokenizer(
        queries, passages, truncation="only_second", max_length=max_tokens, padding=True, return_tensors="pt"
    )
    logits = model(**encoded).logits.view(len(batch), width)
    return torch.nn.functional.cross_entropy(logits, torch.zeros(len(batch), dtype=torch.long))


def train_cross_encoder(model, tokenizer, data: list[Group], settings: RerankSettings) -> TrainReport:
    """Fine-tune `model` in place on `data`; seeded batches as the bi-encoder's (no passage twice)."""
    import torch

    torch.manual_seed(settings.seed)
    plan = batches(
        data, replace(TrainSettings(), steps=settings.steps, batch_size=settings.queries_per_batch, seed=settings.seed)
    )
    _freeze(model, settings.frozen_layers)
    optimiser, schedule = optimiser_with_schedule(model, settings.learning_rate, len(plan), settings.warmup_share)
    report = TrainReport()
    start, cpu = time.perf_counter(), time.process_time()
    model.train()
    try:
        for batch in plan:
            if time.process_time() - cpu > settings.max_cpu_seconds:
                break
            loss = group_loss(model, tokenizer, batch, settings.max_tokens)
            take_step(loss, optimiser, schedule, report)
    finally:
        model.eval()
        for parameter in model.parameters():
            parameter.requires_grad = True
    report.seconds = time.perf_counter() - start
    report.cpu_seconds = time.process_time() - cpu
    return report


def _frozen_parameters(model, layers: int) -> set[int]:
    if layers <= 0:
        return set()
    encoder = model.base_model
    modules = [encoder.embeddings, *encoder.encoder.layer[:layers]]
    return {id(p) for m in modules for p in m.parameters()}


def _freeze(model, layers: int) -> None:
    frozen = _frozen_parameters(model, layers)
    for parameter in model.parameters():
        parameter.requires_grad = id(parameter) not in frozen


def save_cross_encoder(model, tokenizer, folder: Path) -> None:
    """A folder `CrossEncoder(folder)` loads: weights, config, tokenizer reading SERVED_WINDOW tokens."""
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(folder), safe_serialization=True)
    tokenizer.model_max_length = SERVED_WINDOW
    tokenizer.save_pretrained(str(folder))
