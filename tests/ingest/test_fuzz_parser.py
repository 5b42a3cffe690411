"""Fuzzing the intake + parse path with mutated copies of the library's own PDFs (tests/fuzz_pdf.py):
each file is parsed, or rejected / set aside with its reason, within a time bound, in a worker that
the batch replaces if it dies or hangs; nothing is stored for a document that was not parsed."""

from __future__ import annotations

from collections import Counter

import pytest
from fuzz_pdf import GOOD, KINDS, run_batch, table

BOUND_S = 60.0  # per file, intake and parse together (the slowest seen: ~1 s)


def _check(results: list[dict]) -> Counter:
    print("\n" + table(results))
    bad = [r for r in results if r["outcome"] not in GOOD]
    assert not bad, bad
    assert all(r["reason"] for r in results)
    assert all(r["seconds"] < BOUND_S for r in results)
    by_kind = Counter((r["kind"], r["outcome"]) for r in results)
    assert all(by_kind[kind, "rejected"] + by_kind[kind, "set_aside"] + by_kind[kind, "parsed"] > 0 for kind in KINDS)
    encrypted = [r for r in results if r["kind"] == "encrypted"]
    assert all(r["outcome"] == "rejected" and "encrypted" in r["reason"] for r in encrypted)
    huge = [r for r in results if r["kind"] == "huge_page_count"]
    assert all(r["outcome"] == "rejected" and "pages" in r["reason"] for r in huge)
    zero = [r for r in results if r["kind"] == "zero_pages"]
    assert all(r["outcome"] == "rejected" for r in zero)
    return by_kind


def test_a_small_fuzz_batch_is_parsed_or_set_aside(tmp_path):
    by_kind = _check(run_batch(tmp_path, per_kind=3, bound=BOUND_S))
    assert sum(by_kind.values()) == 3 * len(KINDS)


@pytest.mark.slow
def test_two_hundred_mutated_pdfs_are_parsed_or_set_aside(tmp_path):
    results = run_batch(tmp_path, per_kind=30, bound=BOUND_S)
    by_kind = _check(results)
    assert len(results) >= 200
    # the fuzz reaches the parser, not only the envelope check
    assert sum(n for (kind, outcome), n in by_kind.items() if outcome == "parsed") >= 20


def test_a_parse_past_its_time_bound_stops_with_a_reason(monkeypatch):
    from ingest.parsing import pdf
    from ingest.sources.library import LIBRARY_ROOT

    monkeypatch.setattr(pdf, "BASE_SECONDS", -1.0)
    monkeypatch.setattr(pdf, "SECONDS_PER_PAGE", 0.0)
    with pytest.raises(pdf.ParseTimeout, match="parse stopped at page 1"):
        pdf.read_lines(LIBRARY_ROOT / "pdf" / "schumann_repairing_solutions.pdf")


def test_a_page_tree_over_the_cap_is_rejected(tmp_path):
    import random

    from fuzz_pdf import LIBRARY_PDF, MUTATIONS

    from ingest.parsing.validate import MAX_PAGES, RejectedSource, detect_format

    path = tmp_path / "huge.pdf"
    path.write_bytes(
        MUTATIONS["huge_page_count"]((LIBRARY_PDF / "schumann_repairing_solutions.pdf").read_bytes(), random.Random(1))
    )
    with pytest.raises(RejectedSource, match=rf"too many pages \(\d+ > {MAX_PAGES}\)"):
        detect_format(path)
