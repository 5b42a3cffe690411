"""The held-out gold quotes of evaluation/questions/library_*.jsonl verify against the canonical text the
project's own parsers make, and stay refused when one word is changed; an elision inside one of
them verifies (the stitching rule does not touch a quote that skips a few words)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout
from evaluation.datasets import load_library_questions
from serving.citation.verify import Budget, verify_quote
from tests.serving.test_citation import UNHURRIED, _write_document

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = sorted(
    p for p in (ROOT / "evaluation" / "questions").glob("library_*.jsonl") if not p.stem.endswith("_expansions")
)  # expansions are not questions; the vignette sets' documents are not bundled (test_vignette_questions)


@pytest.fixture(scope="module")
def gold(tmp_path_factory):
    """(reader, [(document_id, quote)]) over a state of every file a gold quote comes from."""
    from library_parse import parsed

    from ingest.parsing.markdown import parse_markdown

    golds = [(g["file"], g["quote"]) for path in QUESTIONS for q in load_library_questions(path) for g in q.gold]
    layout = StateLayout(tmp_path_factory.mktemp("gold")).ensure()
    ids = {}
    for file in sorted({f for f, _ in golds}):
        path = ROOT / "library" / file
        blocks = (
            parse_markdown(path.read_text(encoding="utf-8"))
            if path.suffix == ".md"
            else parsed(path, "pdf", parser="pdfium").raw_blocks
        )
        ids[file] = _write_document(layout, file, blocks, "markdown" if path.suffix == ".md" else "pdf")
    return CorpusReader.open(layout), [(ids[f], quote) for f, quote in golds]


@pytest.mark.slow
def test_gold_quotes_verify_and_their_one_word_alterations_do_not(gold):
    reader, quotes = gold
    statuses = [verify_quote(reader, doc, quote).status for doc, quote in quotes]
    failed = [q for (_, q), s in zip(quotes, statuses) if s == "not_found"]
    assert len(quotes) >= 100 and not failed, failed
    rng = random.Random(29)
    altered = elided = 0
    for doc, quote in quotes:
        words = quote.split(" ")
        candidates = [i for i in range(1, len(words) - 1) if words[i].isalpha() and len(words[i]) >= 3]
        i = rng.choice(candidates or [i for i, w in enumerate(words) if any(ch.isalnum() for ch in w)])
        digit = next((ch for ch in words[i] if ch.isdigit()), None)
        if candidates or digit is None:
            new = "lemon" if words[i].lower() != "lemon" else "apple"
        else:  # a row of numbers: one digit changed
            new = words[i].replace(digit, str((int(digit) + 1) % 10), 1)
        changed = " ".join(words[:i] + [new] + words[i + 1 :])
        result = verify_quote(reader, doc, changed, budget=Budget(UNHURRIED))
        assert result.status == "not_found" and result.reason_code == "absent", changed
        assert result.closest is not None and result.closest.word_edits >= 1 and words[i] in result.closest.text
        altered += 1
        tokens = quote.split()
        if len(tokens) >= 10 and "|" not in quote:  # prose: a part cut inside a table row loses its markup
            result = verify_quote(reader, doc, " ".join(tokens[:4]) + " … " + " ".join(tokens[-4:]))
            assert result.status != "not_found", (quote, result.reason)
            elided += 1
    print(
        f"\ngold quotes: {len(quotes)}/{len(quotes)} verified, {altered} one-word alterations refused, "
        f"{elided} elisions verified"
    )
    assert elided >= 50
