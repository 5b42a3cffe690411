"""Cooperative arms: the question set's blind expansions passed as a caller would, and the
per-family table with intervals."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from tiny_benchmark import NAME, TOPICS
from tiny_benchmark import write_beir as write_corpus

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from evaluation.arms import parse_arm
from evaluation.datasets import Expansion, expansions_file, load_expansions
from evaluation.families import family_pairs, family_table, format_families
from evaluation.runs import beir_target, run_arms


def write_beir(folder: Path) -> Path:
    """The tiny corpus (tests/tiny_benchmark.py); queries q0, q1 on topics 0 and 2, each judged
    relevant to its document."""
    return write_corpus(folder, {"q0": TOPICS[0], "q1": TOPICS[2]}, {"q0": "d0", "q1": "d2"})


QUESTIONS = Path(__file__).resolve().parents[2] / "evaluation" / "questions"


def test_cooperative_arm_names():
    assert (parse_arm("coop").mode, parse_arm("coop").expansions) == ("hybrid", (True, True))
    assert parse_arm("coop_alt").expansions == (True, False) and parse_arm("coop_hyp").expansions == (False, True)
    assert parse_arm("hybrid").expansions == (False, False)
    arm = parse_arm("coop@100+coop_alternative_weight=0.5")
    assert arm.pool == 100 and arm.config(ServedConfig()).coop_alternative_weight == 0.5
    with pytest.raises(ValueError):
        parse_arm("coop+coop_alternative_weight=2")  # never above the question's weight


def test_both_splits_carry_blind_expansions_for_every_question():
    for split in ("library_dev", "library_test"):
        path = QUESTIONS / f"{split}.jsonl"
        expansions = load_expansions(path)
        ids = {line.split('"id": "')[1].split('"')[0] for line in path.read_text().splitlines() if line.strip()}
        assert expansions_file(path).exists() and set(expansions) == ids
        assert all(len(e.alternatives) == 3 and e.hypothetical_passage for e in expansions.values())


def test_a_cooperative_arm_searches_the_expansions_and_a_bare_arm_does_not(benchmark_root, tmp_path):
    folder = write_beir(tmp_path / NAME)
    target = beir_target(StateLayout(benchmark_root / "home"), ServedConfig(), folder)
    try:
        with pytest.raises(ValueError, match="expansions"):
            run_arms(target, ["hybrid", "coop"])
        # q0 asks about volcanic ash; its "expansions" all speak of sourdough (d1)
        target.expansions = {
            "q0": Expansion(
                id="q0",
                alternatives=["sourdough fermentation yeast"] * 3,
                hypothetical_passage="Study of sourdough fermentation yeast.",
            )
        }
        result = run_arms(target, ["hybrid", "coop_alt", "coop_hyp", "coop"])
    finally:
        target.close()
    first = {(r["arm"], r["id"]): r["ranked"][0] for r in result.records}
    assert first[("hybrid", "q0")] == "d0"
    assert first[("coop_alt", "q0")] == first[("coop", "q0")] == "d1"
    assert first[("coop_hyp", "q0")] in {"d0", "d1"}
    # a question without expansions is searched bare under every arm
    assert all(first[(arm, "q1")] == first[("hybrid", "q1")] for arm in ("coop", "coop_alt", "coop_hyp"))


@dataclass
class _Q:
    id: str
    family: str


def test_family_table_and_pairs_are_paired_within_each_family():
    questions = [_Q(f"q{i}", "dated" if i < 4 else "table") for i in range(8)]
    bare = {q.id: {"ndcg@10": 0.5, "recall@10": 0.5} for q in questions}
    better = {q.id: {"ndcg@10": 1.0 if q.family == "table" else 0.5, "recall@10": 1.0} for q in questions}
    table = family_table(questions, {"hybrid": bare, "coop": better})
    assert table["coop"]["table"]["ndcg@10"] == [1.0, 1.0, 1.0] and table["hybrid"]["dated"]["n"] == 4
    assert table["coop"]["all"]["n"] == 8 and table["coop"]["all"]["recall@10"][0] == 1.0
    pairs = {(p["family"], p["metric"]): p for p in family_pairs(questions, {"hybrid": bare, "coop": better})}
    assert pairs[("table", "ndcg@10")]["diff"] == 0.5 and pairs[("dated", "ndcg@10")]["diff"] == 0.0
    assert pairs[("dated", "recall@10")]["ci"] == [0.5, 0.5]
    lines = format_families({"family_table": table, "family_pairs": list(pairs.values())})
    assert any("coop − hybrid" in line and "table" in line for line in lines)
