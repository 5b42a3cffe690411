"""Page images of the served state: how many formula passages are marked unreliable, and the size
and render time of every formula/table passage's image, as get_passage (image=true) makes it.

    .venv/bin/python benchmarks/page_images.py --home var [--json] [--out OUT] [--hog]

Each passage holding a display formula or a table is rendered twice through the server's own code
(serving.answer.page_images.describe): cold, into an empty cache folder (the state's sources are read,
its own image cache is left alone), then warm, from that cache. Printed: formula blocks and
passages (all / marked formula_text_unreliable / recognised), image bytes per passage and render
time per passage (wall, and CPU for the cold render), p50 / p95 / max.
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import harness  # noqa: E402

from corpus.models import BlockKind  # noqa: E402
from corpus.reading.published import open_published  # noqa: E402
from corpus.reading.reader import CorpusReader  # noqa: E402
from corpus.state.layout import StateLayout  # noqa: E402
from serving.answer.page_images import describe  # noqa: E402


def _summary(values: list[float]) -> dict:
    p50, p95 = (harness.percentile(values, q) if values else float("nan") for q in (50, 95))
    return {
        "n": len(values),
        "p50": p50,
        "p95": p95,
        "max": max(values, default=float("nan")),
        "mean": statistics.fmean(values) if values else float("nan"),
    }


def measure(home: Path) -> dict:
    view = open_published(StateLayout(home.resolve()))
    reader = CorpusReader.open(view.layout)
    scratch = Path(tempfile.mkdtemp(prefix="page-images-"))
    (scratch / "sources").symlink_to(reader.layout.sources)  # the real sources, an empty image cache
    reader.layout = dataclasses.replace(reader.layout, root=scratch, view=reader.layout.served_root)
    counts = {
        "formula_blocks": 0,
        "unreliable_formula_blocks": 0,
        "recognised_formula_blocks": 0,
        "formula_passages": 0,
        "unreliable_formula_passages": 0,
        "table_passages": 0,
        "pdf_documents": 0,
        "unrendered_passages": 0,
    }
    sizes, cold, cold_cpu, warm = [], [], [], []
    for entry in reader.documents.values():
        if entry.source.format != "pdf":
            continue
        counts["pdf_documents"] += 1
        formulas = [b for b in entry.parsed.blocks if b.kind is BlockKind.formula]
        counts["formula_blocks"] += len(formulas)
        counts["unreliable_formula_blocks"] += sum(b.formula_text_unreliable for b in formulas)
        counts["recognised_formula_blocks"] += sum(b.recognised_by is not None for b in formulas)
        for passage in reader.by_document[entry.document_id]:
            page, _ = describe(reader, passage, render=False)
            if not page.kinds:
                continue
            counts["formula_passages"] += page.formulas > 0
            counts["unreliable_formula_passages"] += page.formula_text_unreliable
            counts["table_passages"] += "table" in page.kinds
            start, cpu = time.perf_counter(), time.process_time()
            page, pngs = describe(reader, passage, render=True)
            cold.append((time.perf_counter() - start) * 1000)
            cold_cpu.append((time.process_time() - cpu) * 1000)  # steady on a busy shared machine
            if not pngs:
                counts["unrendered_passages"] += 1
                continue
            sizes.append(sum(len(p) for p in pngs))
            start = time.perf_counter()
            describe(reader, passage, render=True)
            warm.append((time.perf_counter() - start) * 1000)
    return {
        "counts": counts,
        "image_bytes": _summary(sizes),
        "render_ms_cold": _summary(cold),
        "render_cpu_ms_cold": _summary(cold_cpu),
        "render_ms_cached": _summary(warm),
    }


def main() -> None:
    parser = harness.parser(__file__, __doc__, hog=True)
    parser.add_argument("--home", type=Path, default=Path(os.environ.get("QUANT_RAG_HOME", "var")))
    args = parser.parse_args()
    meter = harness.StealMeter()
    result = harness.with_hog(args, lambda: measure(args.home))
    lines = []
    for suffix, run in (("", result), (" [hog]", result.get("hog"))):
        if run is None:
            continue
        lines += [f"{key + suffix:30s} {value}" for key, value in run["counts"].items()]
        for key in ("image_bytes", "render_ms_cold", "render_cpu_ms_cold", "render_ms_cached"):
            s = run[key]
            lines.append(
                f"{key + suffix:18s} n={s['n']} p50={s['p50']:.1f} p95={s['p95']:.1f} "
                f"max={s['max']:.1f} mean={s['mean']:.1f}"
            )
    harness.emit(args, result, lines, meter=meter)


if __name__ == "__main__":
    main()
