"""The text rendering of verify_citation and verify_citations says that ALL of a verified quote
matched, and echoes the quote whole when short, else its head and tail with its length; the
structured content keeps the quote complete."""

from __future__ import annotations

import pytest

from corpus.state.layout import StateLayout
from serving.answer.outputs import Trace
from serving.citation.verify import verify_batch
from serving.tools.verify_citation import QUOTE_END, QUOTE_SHOWN, render_quote, render_result
from serving.tools.verify_citations import Summary, VerifyCitationsOutput, render_batch
from tests.serving.test_citation import _write_document

SENTENCE = (
    "If a user specifies a confidence level for the value at risk, the estimate is the quantile of the "
    "loss distribution at that level, typically 0.95"
)
LONG = " ".join(
    f"Paragraph sentence {i} says that the estimator of the covariance matrix shrinks towards a target."
    for i in range(6)
)


@pytest.fixture(scope="module")
def reader_and_doc(tmp_path_factory):
    from corpus.reading.reader import CorpusReader

    layout = StateLayout(tmp_path_factory.mktemp("rendering")).ensure()
    doc = _write_document(layout, "rendering", [SENTENCE, LONG], "markdown")
    return CorpusReader.open(layout), doc


def test_a_short_quote_is_echoed_whole_with_all_of_it_matched(reader_and_doc):
    reader, doc = reader_and_doc
    (raw,) = verify_batch(reader, [{"document_id": doc, "quote": SENTENCE}])
    text = render_result(raw)
    assert raw.status == "verified" and len(SENTENCE) <= QUOTE_SHOWN
    assert text.startswith(f"verified: all {len(SENTENCE)} characters matched, raw")
    assert f"“{SENTENCE}”" in text  # the end ("typically 0.95") is there too
    (loose,) = verify_batch(reader, [{"document_id": doc, "quote": SENTENCE.upper()}])
    assert render_result(loose).startswith(
        f"verified_normalised: all {len(SENTENCE)} characters matched, after normalisation"
    )


def test_a_long_quote_shows_its_head_tail_and_length(reader_and_doc):
    reader, doc = reader_and_doc
    (result,) = verify_batch(reader, [{"document_id": doc, "quote": LONG}])
    text = render_result(result)
    assert result.status == "verified" and result.quote == LONG and len(LONG) > QUOTE_SHOWN  # structured: whole
    assert text.startswith(f"verified: all {len(LONG):,} characters matched, raw")
    assert f"“{LONG[:QUOTE_END]}”" in text and f"“{LONG[-QUOTE_END:]}”" in text
    assert f"{len(LONG) - 2 * QUOTE_END:,} characters not shown" in text and LONG not in text


def test_an_ellipsis_quote_says_all_its_parts_matched(reader_and_doc):
    reader, doc = reader_and_doc
    words = SENTENCE.split()
    quote = " ".join(words[:5]) + " … " + " ".join(words[-5:])
    (result,) = verify_batch(reader, [{"document_id": doc, "quote": quote}])
    assert result.status == "verified" and len(result.offsets) == 2
    assert render_result(result).startswith(f"verified: all 2 parts of the {len(quote)}-character quote matched raw")


def test_not_found_says_the_length_not_that_it_matched(reader_and_doc):
    reader, doc = reader_and_doc
    (result,) = verify_batch(reader, [{"document_id": doc, "quote": SENTENCE.replace("0.95", "0.99")}])
    text = render_result(result)
    assert result.status == "not_found" and text.startswith("not_found: “If a user")
    assert f"({len(SENTENCE)} characters)" in text and "matched" not in text.splitlines()[0]


def test_render_quote_bounds():
    assert render_quote("  " + "x" * QUOTE_SHOWN + "  ") == f"“{'x' * QUOTE_SHOWN}”"
    longer = "a" * QUOTE_END + "b" * 61 + "c" * QUOTE_END
    assert render_quote(longer) == f"“{'a' * QUOTE_END}” [… 61 characters not shown …] “{'c' * QUOTE_END}”"


def test_verify_citations_renders_each_item_in_full(reader_and_doc):
    reader, doc = reader_and_doc
    results = verify_batch(reader, [{"document_id": doc, "quote": q} for q in (SENTENCE, LONG, SENTENCE.lower())])
    trace = Trace(
        request_id="r", server_version="s", contract_version="c", corpus_signature=None, config_hash="h", window=1
    )
    out = VerifyCitationsOutput(
        summary=Summary(checked=3, verified=2, verified_normalised=1, not_found=0),
        results=results,
        evidence_provenance=None,
        trace=trace,
    )
    lines = render_batch(out).splitlines()
    raw = "characters matched, raw (exact text)"
    assert lines[1].startswith(f"verified: all {len(SENTENCE)} {raw}: “{SENTENCE}”")
    assert lines[2].startswith(f"verified: all {len(LONG):,} {raw}: “{LONG[:QUOTE_END]}”")
    assert lines[3].startswith(f"verified_normalised: all {len(SENTENCE)} characters matched, after normalisation")
    assert [r.quote for r in out.results] == [SENTENCE, LONG, SENTENCE.lower()]
