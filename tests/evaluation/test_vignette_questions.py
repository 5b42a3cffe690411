"""The vignette question sets (evaluation/questions/vignettes_*.jsonl), written blind over Debian's
R-package vignettes: their shape always; their gold quotes against the PDFs where the corpus is
built (QUANT_RAG_VIGNETTES: the folder of `python -m tools.debian_vignettes build`)."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

import pypdfium2
import pytest

from evaluation.datasets import expansions_file, load_expansions, load_library_questions
from evaluation.leak import idf_table, leak_score
from evaluation.runs import absent_companion

QUESTION_DIR = Path(__file__).resolve().parents[2] / "evaluation" / "questions"
SPLITS = ("dev", "test")
ANSWERABLE = {"single", "table", "formula", "exact", "multi"}
CORPUS = Path(os.environ.get("QUANT_RAG_VIGNETTES", "/work/debian"))


def _split(split: str):
    path = QUESTION_DIR / f"vignettes_{split}.jsonl"
    return path, load_library_questions(path), load_library_questions(absent_companion(path))


def test_splits_are_whole_and_disjoint():
    seen_ids, seen_text = set(), set()
    for split in SPLITS:
        path, answerable, absent = _split(split)
        assert {q.family for q in answerable} == ANSWERABLE
        assert all(q.family == "negative" for q in absent)
        raw = [json.loads(line) for line in absent_companion(path).read_text().splitlines() if line.strip()]
        assert all(r["hypothetical_passage"] and len(r["alternatives"]) == 3 for r in raw)
        assert set(load_expansions(path)) == {q.id for q in answerable}, expansions_file(path)
        for q in answerable + absent:
            assert q.id not in seen_ids and q.question not in seen_text, q.id
            seen_ids.add(q.id)
            seen_text.add(q.question)
        assert all(len({g["file"] for g in q.gold}) >= 2 for q in answerable if q.family == "multi")
    assert len(seen_ids) == 100


@cache
def _pages(name: str) -> tuple[str, ...]:
    document = pypdfium2.PdfDocument(CORPUS / "pdf" / name)
    try:
        return tuple(document[i].get_textpage().get_text_range() for i in range(len(document)))
    finally:
        document.close()


@pytest.mark.slow
@pytest.mark.skipif(not (CORPUS / "pdf").is_dir(), reason=f"no vignette corpus at {CORPUS} (QUANT_RAG_VIGNETTES)")
def test_gold_quotes_are_verbatim_once_and_not_leaked():
    questions = [q for split in SPLITS for q in _split(split)[1]]
    names = sorted(p.name for p in (CORPUS / "pdf").glob("*.pdf"))
    pages = []  # IDF over pages: the writer's checker counted a term's pages, not its documents
    for name in names:
        try:
            pages += _pages(name)
        except pypdfium2.PdfiumError:
            continue  # the corpus's one LaTeX file named .pdf
    idf = idf_table([page for page in pages if page.strip()])
    for q in questions:
        for gold in q.gold:
            quote = gold["quote"]
            assert 30 <= len(quote) <= 200 and "\n" not in quote and "\r" not in quote, q.id
            assert sum(page.count(quote) for page in _pages(gold["file"])) == 1, (q.id, quote)
        assert leak_score(q.question, " ".join(g["quote"] for g in q.gold), idf) <= 1 / 3, q.id
