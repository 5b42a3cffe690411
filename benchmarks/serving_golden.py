"""What search_documents answers for a fixed set of calls, over MCP stdio: the reference a
latency change is held to (the ranked ids, the rendered text and the structured content must stay
byte-identical; only the trace's random request id is masked).

    python benchmarks/serving_golden.py --home S --tree /tmp/tree-at-main --write /tmp/before.json
    python benchmarks/serving_golden.py --home S --write /tmp/after.json --compare /tmp/before.json

The calls: every development question of the library (evaluation/questions/library_dev.jsonl and
the absent ones), bare; the first of them with their rephrasings and hypothetical passage
(`*_expansions.jsonl`); and a few with a mode, a limit past the matched hits, `detail=full`, a
period and an author.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import harness
from wire_client import WireClient

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "evaluation" / "questions"
_REQUEST_RE = re.compile(r"trace: request [0-9a-f]{16} ")
COOPERATIVE = 12  # questions searched again with their expansions
VARIANTS = (
    {"mode": "dense"},
    {"mode": "bm25"},
    {"limit": 20},
    {"detail": "full"},
)
EXTRA = (
    {"query": "volatility forecasting before 2010"},
    {"query": "survival analysis with censored data"},
    {"query": "mixed models in R", "limit": 12},
    {"query": "portfolio optimisation", "author": "Hothorn"},
    {"query": "time series cross-validation", "year_min": 2015},
)


def _jsonl(name: str) -> list[dict]:
    return [json.loads(line) for line in (QUESTIONS / name).read_text(encoding="utf-8").splitlines() if line]


def calls() -> list[dict]:
    """The arguments of every call, in order."""
    questions = _jsonl("library_dev.jsonl") + _jsonl("library_absent_dev.jsonl")
    out = [{"query": q["question"]} for q in questions]
    expansions = {e["id"]: e for e in _jsonl("library_dev_expansions.jsonl")}
    for q in questions[:COOPERATIVE]:
        e = expansions.get(q["id"], {})
        out.append(
            {
                "query": q["question"],
                "alternatives": e.get("alternatives", [])[:4],
                "hypothetical_passage": e.get("hypothetical_passage"),
            }
        )
    out += [{"query": questions[i]["question"], **v} for i, v in enumerate(VARIANTS)]
    return out + [dict(e) for e in EXTRA]


def capture(tree: Path, home: Path) -> list[dict]:
    """Per call: its arguments, the ranked chunk ids, the text blocks and the structured content."""
    # A fixed hash seed: the matching sentences sum a set's weights in its iteration order, so a tie
    # between two windows can fall either way from one process to the next.
    env = {**os.environ, "QUANT_RAG_HOME": str(home), "PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1"}
    env["PYTHONHASHSEED"] = "0"
    out = []
    with WireClient(sys.executable, ["-m", "serving.server"], env, str(tree)) as client:
        client.initialize()
        for arguments in calls():
            arguments = {k: v for k, v in arguments.items() if v is not None}
            result = client.call_tool("search_documents", arguments)[1]
            structured = result["structuredContent"]
            structured["trace"]["request_id"] = "-"
            out.append(
                {
                    "arguments": arguments,
                    "ids": [r["chunk_id"] for r in structured["results"]],
                    "text": [_REQUEST_RE.sub("trace: request - ", c["text"]) for c in result["content"]],
                    "structured": structured,
                }
            )
    return out


def differences(before: list[dict], after: list[dict]) -> list[str]:
    """One line per call whose ids, text or structured content differ."""
    if len(before) != len(after):
        return [f"{len(before)} calls before, {len(after)} after"]
    lines = []
    for b, a in zip(before, after):
        parts = [k for k in ("arguments", "ids", "text", "structured") if b[k] != a[k]]
        if parts:
            lines.append(f"{b['arguments'].get('query', '')[:60]!r}: {', '.join(parts)} differ")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--home", type=Path, required=True, help="state dir (read only)")
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout whose server answers")
    parser.add_argument("--write", type=Path, default=None, help="write the answers here (JSON)")
    parser.add_argument("--compare", type=Path, default=None, help="answers to compare with (JSON)")
    args = parser.parse_args(argv)
    answers = capture(args.tree.resolve(), args.home)
    if args.write:
        args.write.write_text(json.dumps(answers, ensure_ascii=False, sort_keys=True))
    figures: dict = {"calls": len(answers), "hits": sum(len(a["ids"]) for a in answers)}
    lines = [f"{figures['calls']} calls, {figures['hits']} hits"]
    if args.compare:
        diff = differences(json.loads(args.compare.read_text()), answers)
        figures["differing"] = len(diff)
        lines += diff or ["identical: ids, text and structured content of every call"]
    harness.emit(args, figures, lines)
    return 1 if figures.get("differing") else 0


if __name__ == "__main__":
    sys.exit(main())
