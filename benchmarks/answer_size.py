"""What an agent reads: the size of search_documents' text over the dev questions, and whether the gold
passage is in the answer and its gold quote inside the shown sentences.

    QUANT_RAG_HOME=<ingested library state> python benchmarks/answer_size.py [--split dev]
        [--limit 5] [--detail match|full] [--arm bare|coop] [--window 400] [--json]

For each answerable question (and, for sizes, each absent-topic one) the tool is called in process
as the server calls it; the text is what a client shows the model. Reported: the text's median, p90
and mean characters; the share of answerable questions whose gold passage is among the hits ("in
answer"); and the share whose gold quote lies inside a hit's shown text ("shown": the match window
of the first MATCHED_HITS hits, or the whole passages with --detail full). --window overrides the
match window (a lever to choose it; the served one is serving.answer.contract.MATCH_WINDOW). --arm coop
sends the blind expansions (alternatives and hypothetical passage) as an agent would."""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

import harness

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--split", default="dev", choices=["dev", "test"])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--detail", default="match", choices=["match", "full"])
    parser.add_argument("--arm", default="bare", choices=["bare", "coop"])
    parser.add_argument("--window", type=int, default=None)
    args = parser.parse_args()

    import serving.tools.search_documents as search
    from corpus.config import ServedConfig
    from corpus.state.layout import StateLayout
    from evaluation.datasets import (
        embedded_expansions,
        gold_passages,
        library_file_map,
        load_expansions,
        load_library_questions,
    )
    from serving.answer.contract import MATCHED_HITS
    from serving.citation.verify import verify_quote
    from serving.mcp.server import ServingContext, call_tool, tool_specs

    if args.window is not None:
        search.MATCH_WINDOW = args.window
    questions_dir = ROOT / "evaluation" / "questions"
    answerable = load_library_questions(questions_dir / f"library_{args.split}.jsonl")
    absent = load_library_questions(questions_dir / f"library_absent_{args.split}.jsonl")
    expansions = load_expansions(questions_dir / f"library_{args.split}.jsonl") | embedded_expansions(
        questions_dir / f"library_absent_{args.split}.jsonl"
    )
    context = ServingContext(StateLayout(Path(os.environ["QUANT_RAG_HOME"])), ServedConfig.from_env())
    spec = tool_specs()["search_documents"]
    reader = context.engine.parts.reader
    files = library_file_map(reader)
    sizes, in_answer, shown = [], 0, 0
    for question in answerable + absent:
        call = {"query": question.question, "detail": args.detail}
        if args.limit:
            call["limit"] = args.limit
        expansion = expansions.get(question.id) if args.arm == "coop" else None
        if expansion is not None:
            call["alternatives"] = expansion.alternatives[:4]
            call["hypothetical_passage"] = expansion.hypothetical_passage
        result = call_tool(spec, context, call)
        sizes.append(sum(len(block.text) for block in result.content if block.type == "text"))
        if not question.gold:
            continue
        gold = set(gold_passages(question, reader, files))
        hits = result.structured_content["results"]
        in_answer += any(h["chunk_id"] in gold for h in hits)
        visible = hits if args.detail == "full" else hits[:MATCHED_HITS]  # later hits show no text
        shown += any(_quote_shown(h, question, reader, files, verify_quote, args.detail) for h in visible)
    figures = {
        "split": args.split,
        "arm": args.arm,
        "detail": args.detail,
        "limit": args.limit or "default",
        "window": args.window or search.MATCH_WINDOW,
        "questions": len(sizes),
        "chars_median": statistics.median(sizes),
        "chars_p90": harness.percentile(sizes, 90),
        "chars_mean": round(statistics.fmean(sizes)),
        "gold_in_answer": round(in_answer / len(answerable), 3),
        "gold_shown": round(shown / len(answerable), 3),
    }
    harness.emit(args, figures)


def _quote_shown(hit: dict, question, reader, files: dict[str, str], verify_quote, detail: str) -> bool:
    """True when a gold quote of `question` lies inside the part of `hit` its text shows."""
    passage = reader.passages[hit["chunk_id"]]
    match = hit.get("match")
    start, end = (match["start"], match["end"]) if detail == "match" and match else (0, len(passage.text))
    base = passage.ranges[0][0] if len(passage.ranges) == 1 else None
    if base is None:
        return False
    for item in question.gold:
        if files.get(item["file"]) != passage.document_id:
            continue
        found = verify_quote(reader, passage.document_id, item["quote"])
        if any(base + start <= qs and qe <= base + end for qs, qe in found.offsets):
            return True
    return False


if __name__ == "__main__":
    main()
