"""The absent-topic question files: negatives with a hypothetical passage, split 32/16, sharing no
id or text with each other or with the library splits, and loaded beside their library split."""

from __future__ import annotations

import json
from pathlib import Path

from evaluation.datasets import load_library_questions
from evaluation.report import abstention_summary, format_abstention
from evaluation.runs import absent_companion

QUESTION_DIR = Path(__file__).resolve().parents[2] / "evaluation" / "questions"
SPLITS = ("dev", "test")


def test_absent_files_are_negatives_with_expansions_and_disjoint():
    seen_ids, seen_text = set(), set()
    sizes = {}
    for split in SPLITS:
        path = QUESTION_DIR / f"library_absent_{split}.jsonl"
        questions = load_library_questions(path)
        raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        assert all(q.family == "negative" and not q.gold for q in questions)
        assert all(r["hypothetical_passage"] and 1 <= len(r["alternatives"]) <= 4 for r in raw)
        library = load_library_questions(QUESTION_DIR / f"library_{split}.jsonl")
        for q in questions + library:
            assert q.id not in seen_ids and q.question not in seen_text, q.id
            seen_ids.add(q.id)
            seen_text.add(q.question)
        sizes[split] = len(questions)
        assert absent_companion(QUESTION_DIR / f"library_{split}.jsonl") == path
    assert sizes["dev"] >= 30 and sizes["test"] >= 12
    assert absent_companion(QUESTION_DIR / "library_absent_dev.jsonl") is None


def test_abstention_summary_counts_flags_at_the_threshold():
    rows = (
        [{"id": f"a{i}", "family": "absent", "no_answer": p} for i, p in enumerate((0.9, 0.8, 0.4))]
        + [{"id": "n1", "family": "negative", "no_answer": 0.75}]
        + [{"id": f"s{i}", "family": "single", "no_answer": p} for i, p in enumerate((0.1, 0.2, 0.72, 0.3))]
        + [{"id": "s9", "family": "single", "no_answer": None}]
    )
    summary = abstention_summary(rows, {"a0", "a1", "a2", "n1"}, 0.7)
    assert summary["negatives_flagged"] == [3, 4] and summary["absent_flagged"] == [2, 3]
    assert summary["answerable_flagged"] == [1, 4]
    # 16 negative x answerable pairs; the negative wins 13 (0.4 loses to 0.72 only... and beats 3)
    assert summary["auroc"] == round(((4 + 4 + 3) + 4) / 16, 3)
    lines = "\n".join(format_abstention({"abstention": {"hybrid": summary}}))
    assert "3/4 (75%)" in lines and "2/3 (67%)" in lines and "1/4 (25%)" in lines
    assert abstention_summary(rows[4:], set(), 0.7) is None
