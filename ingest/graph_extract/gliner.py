"""GLiNER2 extractor: typed entities and relations from a local model folder (never the hub).

Needs `gliner2` with its local-inference stack (torch, transformers; `gliner2[local]`). The folder
is what `save_pretrained` writes: config.json, encoder_config/, model.safetensors, tokenizer files.
Relation ends are kept only when they coincide with an entity found in the same passage, so every
edge joins two typed entities. Catalogue authors are added as in the vocabulary extractor.
"""

from __future__ import annotations

import logging
from pathlib import Path

from corpus.graph.entities import Mention, Relation
from corpus.graph.graph_store import ENTITY_TYPES, RELATION_TYPES
from corpus.models import Passage
from ingest.graph_extract.rules import AuthorIndex

log = logging.getLogger(__name__)

MAX_CHARS = 12_000  # per passage, as in the prior art (§2.13); longer text is cut, offsets stay valid
ENTITY_DESCRIPTIONS = {
    "person": "a person, e.g. an author or a researcher cited by name",
    "organization": "an institution, company, exchange, regulator or software project",
    "financial_instrument": "a tradable asset or contract: stock, bond, option, future, ETF, ticker",
    "market_concept": "a concept of markets or statistics: liquidity, momentum, stationarity, order book",
    "measure": "a quantity measured or estimated: Sharpe ratio, volatility, VaR, beta, drawdown",
    "method": "a model, estimator, test, algorithm or software package: GARCH, OLS, Kalman filter",
    "dataset": "a named data set or index: S&P 500, CRSP, Fama-French factors",
}
RELATION_DESCRIPTIONS = {
    "measures": "the head quantifies or estimates the tail",
    "predicts": "the head forecasts the tail",
    "causes": "the head causes or drives the tail",
    "depends_on": "the head depends on or requires the tail",
    "correlates_with": "the head is correlated with the tail",
    "applies_to": "the head is applied to the tail",
    "uses_method": "the head uses the tail as a method",
    "compares_with": "the head is compared with the tail",
    "is_a": "the head is a kind of the tail",
    "part_of": "the head is a part or component of the tail",
}


class GlinerExtractor:
    def __init__(
        self, model_path: str | Path, threshold: float = 0.5, relation_threshold: float = 0.5, batch_size: int = 4
    ):
        path = Path(model_path)
        if not (path / "config.json").is_file():
            raise FileNotFoundError(
                f"{path} is not a GLiNER2 model folder (no config.json); "
                "unset QUANT_RAG_GLINER_PATH to use the vocabulary extractor"
            )
        try:
            import torch
            from gliner2 import AutoExtractor
        except ImportError as error:  # plain `gliner2` is only an API client
            raise RuntimeError("local GLiNER2 inference needs `gliner2[local]` (torch, transformers)") from error
        device = "cuda" if torch.cuda.is_available() else "cpu"
        self.model = AutoExtractor.from_pretrained(str(path), map_location=device)
        self.name = f"gliner2:{path}"
        self.threshold, self.batch_size = threshold, batch_size
        self.schema = (
            self.model.create_schema()
            .entities(dict(ENTITY_DESCRIPTIONS))
            .relations(
                {r: {"description": d, "threshold": relation_threshold} for r, d in RELATION_DESCRIPTIONS.items()}
            )
        )

    def extract(self, passages: list[Passage], authors: dict[str, list[str]]) -> tuple[list[Mention], list[Relation]]:
        index = AuthorIndex(authors)
        texts = [p.text[:MAX_CHARS] for p in passages]
        results = self.model.batch_extract(
            texts,
            self.schema,
            batch_size=self.batch_size,
            threshold=self.threshold,
            include_confidence=True,
            include_spans=True,
        )
        mentions: list[Mention] = []
        relations: list[Relation] = []
        for passage, text, result in zip(passages, texts, results):
            found = _entities(passage, text, result.get("entities") or {})
            taken = [(m.start, m.end) for m in found]
            for span, name in index.find(text):
                if not any(s < span.end and span.start < e for s, e in taken):
                    found.append(
                        Mention(passage.chunk_id, passage.document_id, name, "person", span.start, span.end, span.text)
                    )
            mentions += sorted(found, key=lambda m: (m.start, m.end))
            relations += _relations(passage, found, result.get("relation_extraction") or {})
        log.info("gliner2: %d passages, %d mentions, %d relations", len(passages), len(mentions), len(relations))
        return mentions, relations


def _entities(passage: Passage, text: str, by_label: dict) -> list[Mention]:
    """Spans of every label; where spans overlap, the most confident one alone is kept."""
    scored = []
    for label, spans in by_label.items():
        if label not in ENTITY_TYPES:
            continue
        for span in spans or []:
            start, end = span.get("start"), span.get("end")
            if (
                isinstance(start, int)
                and isinstance(end, int)
                and 0 <= start < end <= len(text)
                and text[start:end].strip()
            ):
                scored.append((-float(span.get("confidence", 0.0)), start, end, label))
    out: list[Mention] = []
    for _, start, end, label in sorted(scored):
        if not any(m.start < end and start < m.end for m in out):
            surface = text[start:end]
            out.append(
                Mention(passage.chunk_id, passage.document_id, " ".join(surface.split()), label, start, end, surface)
            )
    return out


def _relations(passage: Passage, mentions: list[Mention], by_relation: dict) -> list[Relation]:
    """Edges whose head and tail spans overlap entities of this passage, named after them."""

    def entity_at(end_point: dict) -> Mention | None:
        start, end = end_point.get("start"), end_point.get("end")
        if not isinstance(start, int) or not isinstance(end, int):
            return None
        overlapping = [m for m in mentions if m.start < end and start < m.end]
        return max(overlapping, key=lambda m: min(m.end, end) - max(m.start, start), default=None)

    best: dict[tuple[str, str, str], float] = {}
    for relation, items in by_relation.items():
        if relation not in RELATION_TYPES:
            continue
        for item in items or []:
            head, tail = item.get("head") or {}, item.get("tail") or {}
            head_entity, tail_entity = entity_at(head), entity_at(tail)
            if head_entity is None or tail_entity is None or head_entity.name == tail_entity.name:
                continue
            score = item.get("confidence")
            if score is None:
                score = min(head.get("confidence", 0.0), tail.get("confidence", 0.0))
            key = (head_entity.name, tail_entity.name, relation)
            best[key] = max(best.get(key, 0.0), float(score))  # one edge per pair and chunk
    return [
        Relation(head, tail, relation, passage.chunk_id, score)
        for (head, tail, relation), score in sorted(best.items())
    ]
