"""The stdio server's resident memory: after `initialize`, after its first search, and after N more
(the development questions in turn), read from /proc: VmRSS now and VmHWM its peak, and VmRSS's
two parts, RssAnon (the process's own memory) and RssFile (file pages it touched, such as the
memory-mapped token rows: the page cache's, shared and reclaimable).

    python benchmarks/serving_memory.py --home S [--searches 100] [--tree /tmp/tree-at-main]
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import harness
from wire_client import WireClient, cpu_seconds

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "evaluation" / "questions" / "library_dev.jsonl"
WARM_UP_S = 3.0  # the background warm-up's last parts (the caller's graph, the dense prescore)


def memory_mb(pid: int) -> dict[str, float]:
    """VmRSS, VmHWM, RssAnon and RssFile of `pid` in MB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return {key: round(int(fields[key].split()[0]) / 1024, 1) for key in ("VmRSS", "VmHWM", "RssAnon", "RssFile")}


def measure(tree: Path, home: Path, searches: int) -> dict:
    questions = [json.loads(line)["question"] for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line]
    env = {**os.environ, "QUANT_RAG_HOME": str(home), "PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1"}
    with WireClient(sys.executable, ["-m", "serving.server"], env, str(tree)) as client:
        out = {"initialize": {"s": round(client.initialize(), 2), **memory_mb(client.pid)}}
        client.call_tool("search_documents", {"query": questions[0]})
        out["first search"] = {"s": round(time.perf_counter() - client.started, 2), **memory_mb(client.pid)}
        time.sleep(WARM_UP_S)
        for i in range(searches):
            client.call_tool("search_documents", {"query": questions[(i + 1) % len(questions)]})
        out[f"after {searches} searches"] = {"server_cpu_s": round(cpu_seconds(client.pid), 2), **memory_mb(client.pid)}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--home", type=Path, required=True, help="state dir (read only)")
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout whose server runs")
    parser.add_argument("--searches", type=int, default=100)
    args = parser.parse_args(argv)
    figures = measure(args.tree.resolve(), args.home, args.searches)
    lines = [f"{stage:<22}" + "  ".join(f"{k} {v}" for k, v in row.items()) for stage, row in figures.items()]
    harness.emit(args, figures, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
