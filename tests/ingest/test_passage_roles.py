"""Passage roles (ingest.passages.passage_roles): furniture marked on real library documents and by rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from library_parse import parsed

from corpus.models import BlockKind, Passage
from corpus.text.canonical import assemble_canonical
from ingest.parsing import parse_source
from ingest.passages.chunker import chunk_document
from ingest.passages.passage_roles import has_prose, passage_role, section_name

LIBRARY = Path(__file__).resolve().parents[2] / "library"
DOC = "doc-00000000000000aa"


def _library(name: str, fmt: str) -> list[Passage]:
    path = LIBRARY / fmt / name
    output = parsed(path, "pdf") if fmt == "pdf" else parse_source(path, "markdown")
    canonical, blocks = assemble_canonical(output.raw_blocks)
    return chunk_document(DOC, canonical, blocks, garbled=output.garbled_text)


def _p(text: str, section: list[str] | None = None, ordinal: int = 5, garbled: bool = False) -> Passage:
    return Passage(
        chunk_id="chunk-0000000000000001",
        document_id=DOC,
        ordinal=ordinal,
        section=section or ["A paper", "Method"],
        text=text,
        ranges=[(0, len(text))],
        granularity="exact",
        block_kinds=[BlockKind.paragraph],
        garbled_text=garbled,
    )


@pytest.fixture(scope="module")
def cvar_budgets() -> list[Passage]:
    return _library("boudt_carl_peterson_cvar_budgets.pdf", "pdf")


def test_a_bundled_pdf_has_its_title_block_contents_and_references_marked(cvar_budgets):
    roles = {p.ordinal: p.role for p in cvar_budgets}
    assert roles[0] == "title_block", cvar_budgets[0].text
    contents = [p for p in cvar_budgets if p.role == "contents"]
    assert contents and all("Contents" in p.section[-1] or p.text.count(". . .") >= 3 for p in contents)
    references = [p for p in cvar_budgets if p.role == "references"]
    assert references and all(section_name(p) == "references" for p in references)
    # every passage under a References heading is marked, and nothing else is
    assert {p.chunk_id for p in cvar_budgets if section_name(p) == "references"} == {p.chunk_id for p in references}


def test_normal_paragraphs_of_the_same_pdf_are_body(cvar_budgets):
    body = [p for p in cvar_budgets if p.role == "body"]
    assert len(body) >= 0.7 * len(cvar_budgets)
    prose = next(p for p in cvar_budgets if "objective function" in p.text and has_prose(p.text) and p.ordinal > 2)
    assert prose.role == "body", prose.text[:200]


def test_contents_without_a_contents_heading_is_found_by_its_lines():
    passages = _library("cornilly_peterson_estimation_higher_order_comoments.pdf", "pdf")
    unheaded = [p for p in passages if p.role == "contents" and section_name(p) != "contents"]
    assert unheaded and all(p.ordinal <= 2 for p in unheaded), [p.text[:80] for p in unheaded]
    assert sum(p.role == "body" for p in passages) >= 0.7 * len(passages)


def test_a_lecture_reference_section_is_marked_and_its_body_is_not():
    passages = _library("quantopian_lecture07_variance.md", "markdown")
    by_role = {p.role for p in passages}
    assert "references" in by_role
    assert all(p.role == "body" for p in passages if "Dispersion measures" in p.text)


@pytest.mark.parametrize(
    "heading", ["References", "7 References", "References:", "BIBLIOGRAPHY", "References 9", "Works Cited"]
)
def test_reference_section_names(heading):
    assert (
        passage_role(_p("Engle, R. F. (1982). Autoregressive conditional heteroscedasticity.", ["A paper", heading]))
        == "references"
    )


def test_a_section_that_merely_mentions_references_is_body():
    text = (
        "In this section we review the references that shaped the field and explain how each of "
        "them relates to the model that we propose in the next section of the paper."
    )
    assert passage_role(_p(text, ["A paper", "6. Applications, comments and references"])) == "body"


def test_numeric_output_in_a_code_fence_is_not_a_table_of_contents():
    output = "```\n" + "\n".join(f"Mean {i}\nStd {i + 1}" for i in range(6)) + "\n```"
    assert passage_role(_p(output)) == "body"
    toc = "\n".join(f"{i}.1 Section title number . . . . . . . . {i * 3}" for i in range(1, 7))
    assert passage_role(_p(toc)) == "contents"


def test_index_entries_are_an_index():
    entries = "\n".join(
        f"{word}, {i}, {i + 10}–{i + 12}"
        for i, word in enumerate(
            [
                "alpha",
                "beta hedging",
                "CVaR",
                "drawdown",
                "expected shortfall",
                "GARCH",
                "kurtosis",
                "Sharpe ratio",
                "value at risk",
            ],
            start=3,
        )
    )
    assert passage_role(_p(entries)) == "index"


def test_a_title_block_is_the_first_passage_without_prose():
    title = "Notes on the Sharpe ratio\n\nSteven E. Pav\n\nDecember 18, 2024"
    assert passage_role(_p(title, ordinal=0)) == "title_block"
    assert passage_role(_p(title, ordinal=3)) == "body"  # only a document's opening
    abstract = (
        title + "\n\nAbstract Herein is a hodgepodge of facts about the Sharpe ratio and the Markowitz portfolio."
    )
    assert passage_role(_p(abstract, ordinal=0)) == "body"
    assert passage_role(_p(title, ordinal=0, garbled=True)) == "body"  # no guessing on broken text
