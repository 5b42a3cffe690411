"""Running headers and footers are page furniture only on a page that holds other text too: a
document whose every page holds one line that repeats (digits apart) keeps every line, and a parse
that keeps no text says why (no readable character, or all of it taken for furniture)."""

from __future__ import annotations

import pytest
from generated_pdf import write_text_pdf

from corpus.state.layout import StateLayout
from corpus.text.canonical import assemble_canonical
from ingest.parsing import parse_source
from ingest.parsing import validate as validate_module
from ingest.parsing.validate import RejectedSource, check_source
from ingest.passages.parse import parse_document
from ingest.sources.register import register_file

PAGES = 300  # enough pages for the repetition rule to see a running line on every one


def _text(path) -> str:
    return assemble_canonical(parse_source(path, check_source(path).format).raw_blocks)[0]


def test_a_repeated_line_that_is_a_page_s_whole_text_is_kept(tmp_path):
    path = write_text_pdf(
        tmp_path / "records.pdf",
        [[(f"Record {n}: the same sentence on every page of this file.", 72)] for n in range(PAGES)],
    )
    text = _text(path)
    assert [f"Record {n}:" in text for n in range(PAGES)] == [True] * PAGES


def test_a_page_number_goes_and_the_repeated_line_beside_it_stays(tmp_path):
    path = write_text_pdf(
        tmp_path / "numbered.pdf",
        [[("The whole text of this page, the same on each.", 72), (f"{n + 1}", 740)] for n in range(PAGES)],
    )
    text = _text(path)
    assert text.count("The whole text of this page") == PAGES
    assert "\n\n1\n\n" not in f"\n\n{text}\n\n" and "\n\n200\n\n" not in f"\n\n{text}\n\n"


def test_a_running_header_beside_the_body_still_goes(tmp_path):
    path = write_text_pdf(
        tmp_path / "paper.pdf",
        [
            [
                ("JOURNAL OF REPEATED HEADERS, VOLUME 3", 40),
                (f"Body paragraph {n} speaks of returns, variance and the portfolio it holds.", 200),
            ]
            for n in range(20)
        ],
    )
    text = _text(path)
    assert "JOURNAL OF REPEATED HEADERS" not in text and text.count("Body paragraph") == 20


def test_short_lines_of_a_document_without_prose_are_not_taken_for_a_plot(tmp_path):
    """Without a line of six words no font tells a plot's labels from the text: the lines stay."""
    path = write_text_pdf(
        tmp_path / "slips.pdf",
        [[(f"Item {n}", 300), ("Amount due", 318), ("Paid in full", 336), ("Signed by clerk", 354)] for n in range(30)],
    )
    assert _text(path).count("Signed by clerk") == 30


def test_a_pdf_over_the_page_cap_is_refused_as_too_many_pages(tmp_path, monkeypatch):
    monkeypatch.setattr(validate_module, "MAX_PAGES", 100)
    path = write_text_pdf(tmp_path / "long.pdf", [[(f"Page {n} text.", 72)] for n in range(150)])
    with pytest.raises(RejectedSource) as caught:
        check_source(path)
    assert caught.value.reason == "too many pages (150 > 100)"


def _set_aside_reason(tmp_path, pages) -> str:
    layout = StateLayout(tmp_path / "state")
    layout.ensure()
    registration = register_file(layout, write_text_pdf(tmp_path / "doc.pdf", pages))
    assert registration.document_id is not None
    with pytest.raises(ValueError) as caught:
        parse_document(layout, registration.document_id)
    return str(caught.value)


def test_a_pdf_without_text_is_set_aside_as_such(tmp_path):
    reason = _set_aside_reason(tmp_path, [[], []])
    assert reason == "no text could be extracted (scanned or empty document: no readable character on its 2 page(s))"


def test_a_pdf_whose_only_text_is_furniture_says_so(tmp_path):
    reason = _set_aside_reason(tmp_path, [[(f"{n + 1}", 740)] for n in range(5)])  # bare page numbers only
    assert reason.startswith("no text kept: the 5 characters pdfium read on its 5 page(s) were all taken")
