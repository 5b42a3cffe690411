"""A tiny BEIR corpus, and its build through the pipeline's jobs into its own benchmark state
(tests/conftest.py builds it once per test run: `benchmark_root`)."""

from __future__ import annotations

import json
from pathlib import Path

TOPICS = [
    "volcanic ash aviation",
    "sourdough fermentation yeast",
    "glacier meltwater runoff",
    "chess opening theory",
    "honeybee colony collapse",
    "tidal turbine energy",
    "medieval manuscript illumination",
    "zebrafish cartilage regeneration",
    "railway signalling interlocks",
    "coral reef bleaching",
]
GROUPED = [
    "harbour crane maintenance",
    "alpine avalanche forecasting",
    "orchid seed germination",
    "lighthouse lens grinding",
    "desert locust swarms",
    "violin varnish chemistry",
    "subway tunnel ventilation",
    "arctic sea ice thickness",
]
FILLER = (
    "This abstract reports observations, methods and results in plain words so that every "
    "document is long enough to be served as a passage by the retrieval engine. "
)
NAME = "tiny"


def corpus_rows() -> list[dict]:
    """10 titled documents d0..d9, one topic each; then 8 untitled rows r0..r7 where r0-r2 and
    r3-r5 name one source each (TAT-QA's context_id) and r6, r7 name none."""
    docs = [
        {"_id": f"d{i}", "title": f"On {topic}", "text": f"Study of {topic}. " + FILLER * 2}
        for i, topic in enumerate(TOPICS)
    ]
    rows = [
        {
            "_id": f"r{i}",
            "title": "",
            "text": f"{topic} figures. " + FILLER,
            "metadata": {"context_id": f"ctx{i // 3}"} if i < 6 else {},
        }
        for i, topic in enumerate(GROUPED)
    ]
    return docs + rows


def write_beir(folder: Path, queries: dict[str, str], qrels: dict[str, str]) -> Path:
    """A BEIR folder over `corpus_rows()`: queries (id -> text), one judged corpus id per query."""
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus_rows()))
    (folder / "queries.jsonl").write_text("".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in queries.items()))
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, d in qrels.items())
    )
    return folder


def build(root: Path) -> None:
    """`root/tiny`: the BEIR folder; `root/home`: a home whose benchmark state of it is published."""
    from corpus.state.layout import StateLayout
    from ingest.parsing.beir import read_corpus
    from orchestration.benchmark import prepare_benchmark

    folder = write_beir(root / NAME, {"q0": TOPICS[0]}, {"q0": "d0"})
    prepare_benchmark(StateLayout(root / "home").ensure(), NAME, read_corpus(folder / "corpus.jsonl"))
