"""The library question sets (dev and frozen test): verbatim gold, low leak, every family, periods."""

from __future__ import annotations

import csv
import re
import statistics
from collections import Counter
from functools import cache
from pathlib import Path

import pypdfium2
import pytest

from evaluation.datasets import load_library_questions
from evaluation.leak import idf_table, leak_score

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "library"
QUESTION_DIR = ROOT / "evaluation" / "questions"
SPLITS = ("library_dev.jsonl", "library_test.jsonl")
MAX_LEAK = 1 / 3
FAMILIES = {"single", "table", "formula", "dated", "exact", "multi", "negative"}


@cache
def _pages(file: str) -> tuple[str, ...]:
    """A Markdown file as one text; a PDF as pypdfium2's text of each page."""
    path = LIBRARY / file
    if path.suffix == ".md":
        return (path.read_text(encoding="utf-8"),)
    document = pypdfium2.PdfDocument(path)
    try:
        return tuple(document[i].get_textpage().get_text_range() for i in range(len(document)))
    finally:
        document.close()


@pytest.fixture(scope="module")
def manifest() -> dict[str, dict]:
    with (LIBRARY / "manifest.csv").open(encoding="utf-8", newline="") as handle:
        return {row["file"]: row for row in csv.DictReader(handle)}


@pytest.fixture(scope="module", params=SPLITS)
def questions(request):
    """Each split in turn: every per-question rule holds for dev and for the frozen test split."""
    return load_library_questions(QUESTION_DIR / request.param)


@pytest.fixture(scope="module")
def splits():
    return {name: load_library_questions(QUESTION_DIR / name) for name in SPLITS}


@pytest.fixture(scope="module")
def idf(manifest):
    """IDF over the library's retrieval-sized units: Markdown blocks and PDF pages."""
    units: list[str] = []
    for file in sorted(manifest):
        for text in _pages(file):
            units += [b for b in text.split("\n\n") if b.strip()] if file.endswith(".md") else [text]
    return idf_table(units)


def test_size_and_families(questions):
    counts = Counter(q.family for q in questions)
    assert len(questions) >= 40 and set(counts) == FAMILIES
    assert min(counts.values()) >= 4, counts


def test_union_size_and_families(splits):
    union = [q for questions in splits.values() for q in questions]
    counts = Counter(q.family for q in union)
    assert len(union) >= 120 and set(counts) == FAMILIES, counts
    assert min(counts.values()) >= 12 and counts["negative"] >= 15, counts


def test_splits_share_no_id_or_question(splits):
    dev, test = (splits[name] for name in SPLITS)
    assert not {q.id for q in dev} & {q.id for q in test}
    assert not {q.question for q in dev} & {q.question for q in test}


def test_gold_quotes_are_verbatim_in_usable_sources(questions, manifest):
    for question in questions:
        for gold in question.gold:
            assert gold["file"] in manifest, gold["file"]
            assert manifest[gold["file"]]["text_layer_ok"] == "True", f"{question.id}: garbled source"
            quote = gold["quote"]
            assert 30 <= len(quote) <= 200 and "\n" not in quote and "\r" not in quote, question.id
            hits = sum(page.count(quote) for page in _pages(gold["file"]))
            assert hits == 1, f"{question.id}: quote found {hits} times in {gold['file']}: {quote!r}"


def test_multi_questions_span_two_documents(questions):
    for question in questions:
        if question.family == "multi":
            assert len({g["file"] for g in question.gold}) >= 2, question.id


# The phrasings users write for a period. This only checks that a dated question
# words one; turning the phrase into bounds is the retrieval side's job, not this test's.
PERIOD_PHRASE = re.compile(
    r"\b(before|after|since|around|between \d{4} and|from \d{4} onwards|pre-\d{4}|in \d{4})\b"
    r"|\b(?:19|20)\d{2}s\b|\b(early|mid|late)[- ](?:19|20)\d{2}s\b"
    r"|\b(?:19|20)\d{2} (study|paper|papers|slides|guidance|work|research|article|talk)\b"
    r"|\bin the last \d+ years\b|\brecent (work|papers|research|studies)\b",
    re.IGNORECASE,
)


def test_dated_questions_word_a_period_holding_the_gold_year(questions, manifest):
    for question in (q for q in questions if q.family == "dated"):
        assert PERIOD_PHRASE.search(question.question), f"{question.id}: no period phrase"
        low, high = question.period
        assert low is not None or high is not None, question.id
        for gold in question.gold:
            year = int(manifest[gold["file"]]["year"])
            assert (low is None or low <= year) and (high is None or year <= high), question.id


def test_leak_is_low(questions, idf):
    leaks = {q.id: leak_score(q.question, " ".join(g["quote"] for g in q.gold), idf) for q in questions if q.gold}
    high = {k: round(v, 3) for k, v in leaks.items() if v > MAX_LEAK}
    assert not high, f"questions copying their gold: {high}"
    _print_distribution("leak vs gold quotes", leaks.values())
    # informational: against a passage-sized window (the Markdown paragraph, ±600 PDF characters)
    windows = {q.id: leak_score(q.question, " ".join(_window(g) for g in q.gold), idf) for q in questions if q.gold}
    _print_distribution("leak vs passage-sized window", windows.values())


def _window(gold: dict, reach: int = 600) -> str:
    text = "".join(_pages(gold["file"]))
    start = text.index(gold["quote"])
    end = start + len(gold["quote"])
    if gold["file"].endswith(".md"):  # the paragraph holding the quote
        before, after = text.rfind("\n\n", 0, start), text.find("\n\n", end)
        return text[max(before, 0) : after if after >= 0 else len(text)]
    return text[max(0, start - reach) : end + reach]


def _print_distribution(label: str, values) -> None:
    values = sorted(values)
    print(
        f"\n{label} ({len(values)} answerable questions): min {values[0]:.3f} "
        f"median {statistics.median(values):.3f} max {values[-1]:.3f}"
    )


@pytest.mark.slow
def test_gold_survives_the_project_parsers(questions):
    """Each gold quote is found in the canonical text our own parsers produce (~30 s), the way
    citation verification finds it: verbatim, or after normalisation (which skips Markdown markup,
    so a table row quoted with its pipes is found verbatim, one quoted without them normalised)."""
    from library_parse import parsed

    from corpus.text.canonical import assemble_canonical
    from corpus.text.normalise import normalise_with_map
    from ingest.parsing.markdown import parse_markdown

    files = sorted({g["file"] for q in questions for g in q.gold})
    raw, canonical = {}, {}
    for file in files:
        path = LIBRARY / file
        blocks = (
            parse_markdown(path.read_text(encoding="utf-8"))
            if path.suffix == ".md"
            else parsed(path, "pdf", parser="pdfium").raw_blocks
        )  # = parse_pdf(path).blocks
        raw[file] = assemble_canonical(blocks)[0]
        canonical[file] = normalise_with_map(raw[file])[0]
    missing = [
        (q.id, g["quote"])
        for q in questions
        for g in q.gold
        if g["quote"] not in raw[g["file"]] and normalise_with_map(g["quote"])[0] not in canonical[g["file"]]
    ]
    assert not missing, missing
