"""Wall time of ingesting the bundled library from a fresh state (with every stage's wall and CPU
seconds), then adding one short PDF; with --reference, the cosine of every stored vector to the
same piece's vector in another state (embedded with the same passage runtime: equal, cosine ≥ 0.999;
a float32 reference to this run's int8 vectors: mean ≈ 0.996, min ≈ 0.990).

    python benchmarks/ingest_library.py [--home DIR] [--reference /work/state/lib9] [--json]

CPU seconds (user + sys of this process and its waited-for children) come from a sampler thread
(every 0.2 s) cut at each Dagster step's start and end: on a shared machine they, not the wall
seconds, say what a stage costs; wall ≈ CPU / 2 for a stage that keeps both cores busy.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import harness  # noqa: E402
import numpy as np  # noqa: E402
from host import host_report  # noqa: E402

from corpus.config import ServedConfig  # noqa: E402
from corpus.state.layout import StateLayout  # noqa: E402
from ingest.sources.library import LIBRARY_ROOT, library_files  # noqa: E402
from orchestration.runner import ingest, instance_for  # noqa: E402

LATE_DOCUMENT = "pdf/schumann_repairing_solutions.pdf"
TWO_CORE_STEPS = {"passage_embeddings", "parsed_document"}  # the model's two threads; two parser processes


class CpuSampler(threading.Thread):
    """(wall, CPU seconds) of this process every `every` seconds, for cutting at step boundaries."""

    def __init__(self, every: float = 0.2):
        super().__init__(daemon=True)
        self.every, self.samples, self.stopped = every, [], threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            t = os.times()
            self.samples.append((time.time(), t.user + t.system + t.children_user + t.children_system))
            time.sleep(self.every)

    def cpu_between(self, start: float, end: float) -> float:
        walls, cpus = zip(*self.samples)
        return float(np.interp(end, walls, cpus) - np.interp(start, walls, cpus))


def step_cpu(layout: StateLayout, sampler: CpuSampler, since: float) -> dict[str, dict[str, float]]:
    """{step: {wall, cpu}} summed over the runs started after `since` (one step per asset or dbt build)."""
    import dagster as dg

    instance = instance_for(layout)
    out: dict[str, dict[str, float]] = {}
    for run in instance.get_runs():
        starts = {}
        for record in instance.all_logs(run.run_id):
            event = record.dagster_event
            if event is None or record.timestamp < since:
                continue
            if event.event_type == dg.DagsterEventType.STEP_START:
                starts[event.step_key] = record.timestamp
            elif event.event_type == dg.DagsterEventType.STEP_SUCCESS and event.step_key in starts:
                begin = starts.pop(event.step_key)
                row = out.setdefault(event.step_key, {"wall": 0.0, "cpu": 0.0})
                row["wall"] += record.timestamp - begin
                row["cpu"] += sampler.cpu_between(begin, record.timestamp)
    return {k: {m: round(v, 1) for m, v in row.items()} for k, row in out.items()}


def vector_parity(layout: StateLayout, reference: StateLayout) -> dict:
    """Min and mean cosine of each stored (chunk id, piece) vector to the reference state's."""
    from ingest.indexes.embed import load_document_embeddings

    config, cosines, missing = ServedConfig.from_env(), [], 0
    # the reference's vectors under this run's key, else its float32 ones (a state made before int8)
    float_config = config.model_copy(update={"passage_runtime": "onnx"})
    for document_id in layout.registered_document_ids():
        ref_config = next(
            (c for c in (config, float_config) if reference.embeddings(document_id, c.model_key).exists()), None
        )
        if ref_config is None:
            missing += 1
            continue
        ids, pieces, vectors = load_document_embeddings(layout, config, document_id)
        ref_ids, ref_pieces, ref_vectors = load_document_embeddings(reference, ref_config, document_id)
        row = {(c, int(p)): i for i, (c, p) in enumerate(zip(ref_ids, ref_pieces))}
        for i, key in enumerate(zip(ids, (int(p) for p in pieces))):
            if key in row:
                cosines.append(float(vectors[i] @ ref_vectors[row[key]]))
            else:
                missing += 1
    return {
        "compared": len(cosines),
        "min_cosine": round(min(cosines), 6) if cosines else None,
        "mean_cosine": round(float(np.mean(cosines)), 6) if cosines else None,
        "unmatched": missing,
    }


def main() -> None:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--home", type=Path, default=None)
    parser.add_argument("--reference", type=Path, default=None, help="a state whose vectors should be equal")
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="quant-rag-bench-"))
    shutil.rmtree(home, ignore_errors=True)
    layout = StateLayout(home)
    files = [(p, k) for p, k in library_files() if k != LATE_DOCUMENT]
    sampler = CpuSampler()
    sampler.start()
    since = time.time()
    steal = harness.StealMeter()
    report, bulk = harness.timed(ingest, layout, files)
    host = host_report(steal)  # the CPU, and what the hypervisor took during the bulk ingest
    time.sleep(2 * sampler.every)  # a sample after the end
    bulk_cpu = sampler.cpu_between(since, time.time() - sampler.every)
    steps = step_cpu(layout, sampler, since)
    pages = sum(
        json.loads(layout.parsed_blocks(d).read_text()).get("pages") or 0 for d in layout.registered_document_ids()
    )
    late, one = harness.timed(ingest, layout, [(LIBRARY_ROOT / LATE_DOCUMENT, LATE_DOCUMENT)])
    sampler.stopped.set()
    harness.emit(
        args,
        {
            "documents": report.documents,
            "pdf_pages": pages,
            "bulk_seconds": round(bulk, 1),
            "bulk_cpu_seconds": round(bulk_cpu, 1),
            "load_average_1min_at_end": os.getloadavg()[0],
            "pdf_pages_per_second_overall": round(pages / bulk, 2),
            # each Dagster step's wall and CPU seconds (parse, chunk, embed, … the dbt build, publish)
            "step_wall_and_cpu_seconds": steps,
            # idle: the embedding step keeps both cores busy (wall ≈ CPU / 2), every other step one
            "idle_projection_seconds": round(
                sum(s["cpu"] / (2 if k in TWO_CORE_STEPS else 1) for k, s in steps.items())
                + max(0.0, bulk_cpu - sum(s["cpu"] for s in steps.values())),
                1,
            ),
            "checks_failed": [k for k, v in {**report.checks, **late.checks}.items() if not v],
            "add_one_short_pdf_seconds": round(one, 1),
            "documents_after": late.documents,
            "signature": late.signature,
            "home": str(home),
            **({"vector_parity": vector_parity(layout, StateLayout(args.reference))} if args.reference else {}),
        },
        host=host,
    )


if __name__ == "__main__":
    main()
