"""Document furniture on a built state: passages by role, and furniture in the library dev top 10.

Prints (1) the passages of the state by role (ingest.passages.passage_roles, as stored by the chunk
stage), and (2) for each library dev question, the hybrid top 10 (as `quant-rag eval` retrieves
it) with and without serving.retrieval.furniture; "without" keeps the older rule, which left out only a
passage whose own section is named exactly References, Bibliography, Literature cited or Works
cited.

    QUANT_RAG_HOME=/path/to/state .venv/bin/python benchmarks/passage_furniture.py
"""

from __future__ import annotations

import collections
import json
import os
import sys
from pathlib import Path

import harness

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import serving.retrieval.engine as engine_module  # noqa: E402
from corpus.config import ServedConfig  # noqa: E402
from corpus.state.layout import StateLayout  # noqa: E402
from evaluation.runs import retrieve  # noqa: E402
from serving.mcp.server import ServingContext  # noqa: E402

QUESTIONS = Path(__file__).resolve().parents[1] / "evaluation" / "questions" / "library_dev.jsonl"
OLD_RULE = {"references", "bibliography", "literature cited", "works cited"}


def _old_rule(ranked, passages, question):
    return [
        c
        for c in ranked
        if not (passages[c.chunk_id].section and passages[c.chunk_id].section[-1].strip().casefold() in OLD_RULE)
    ]


def main() -> None:
    args = harness.parser(__file__, __doc__).parse_args()
    home = Path(os.environ.get("QUANT_RAG_HOME", "var"))
    engine = ServingContext(StateLayout(home), ServedConfig()).engine
    passages = engine.parts.reader.passages
    roles = collections.Counter(p.role for p in passages.values())
    furniture = engine_module.drop_furniture
    questions = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    shown = {"without": collections.Counter(), "with": collections.Counter()}
    changed = []
    for q in questions:
        tops = {}
        for arm, rule in (("without", _old_rule), ("with", furniture)):
            engine_module.drop_furniture = rule
            tops[arm] = [h.chunk_id for h in retrieve(engine, q["question"], "hybrid").found.hits]
            shown[arm].update(passages[c].role for c in tops[arm] if passages[c].role != "body")
        engine_module.drop_furniture = furniture
        if tops["with"] != tops["without"]:
            changed.append(q["id"])
    figures = {
        "passages": len(passages),
        "passages_by_role": dict(roles.most_common()),
        "questions": len(questions),
        "furniture_in_top10": {arm: dict(counts) for arm, counts in shown.items()},
        "changed_top10": changed,
    }
    harness.emit(
        args,
        figures,
        [
            f"passages by role ({len(passages)}): {dict(roles.most_common())}",
            f"furniture passages in the hybrid top 10 of {len(questions)} library dev questions: "
            f"without the filter {dict(shown['without'])}, with it {dict(shown['with'])}",
            f"questions whose top 10 changed: {len(changed)} ({', '.join(changed)})",
        ],
    )


if __name__ == "__main__":
    main()
