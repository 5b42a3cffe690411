"""Parsing: Markdown and PDF sources to typed raw blocks; garbled-text detection."""

from __future__ import annotations

import re
import sys

import pytest
from library_parse import parsed

from corpus.models import BlockKind
from corpus.text.canonical import assemble_canonical
from corpus.text.safe_cut import scan
from corpus.versions import PARSER_VERSION
from ingest.parsing import PDF_PARSER_SETTING, parse_source, parser_version
from ingest.parsing.garbled import garbled_score, is_garbled
from ingest.parsing.markdown import parse_markdown
from ingest.parsing.mineru import ParserUnavailable, html_table_to_pipe
from ingest.parsing.pdf_lines import HYPHEN_MARK
from ingest.parsing.pdf_text import join_lines
from ingest.sources.library import LIBRARY_ROOT

PDF = LIBRARY_ROOT / "pdf"
GARBLED = {"christidis_martin_standard_errors_risk_performance.pdf", "peterson_portfolio_returns_vignette.pdf"}

SAMPLE_MD = """<!-- licence header, not content -->

# Title

Intro with inline $x_t$ maths.
Next we write
$$
a = b \\\\

c = d
$$

## Section

| a | b |
|---|---|
| 1 | $2$ |

```python
# not a heading
x = "$$"
```

- one
- two

### Deeper
Closing text.
"""


def _kinds(blocks):
    return [b.kind for b in blocks]


def test_markdown_headings_levels_and_block_kinds():
    blocks = parse_markdown(SAMPLE_MD)
    headings = [(b.text, b.level) for b in blocks if b.kind is BlockKind.heading]
    assert headings == [("Title", 1), ("Section", 2), ("Deeper", 3)]
    assert _kinds(blocks) == [
        BlockKind.heading,
        BlockKind.paragraph,
        BlockKind.formula,
        BlockKind.heading,
        BlockKind.table,
        BlockKind.code,
        BlockKind.list,
        BlockKind.heading,
        BlockKind.paragraph,
    ]
    assert all(b.page_start is None for b in blocks)
    assert "licence header" not in " ".join(b.text for b in blocks)


def test_markdown_display_math_spanning_a_blank_line_is_one_block():
    formula = [b for b in parse_markdown(SAMPLE_MD) if b.kind is BlockKind.formula]
    assert formula[0].text == "$$\na = b \\\\\n\nc = d\n$$"
    paragraph = parse_markdown(SAMPLE_MD)[1]
    assert paragraph.text == "Intro with inline $x_t$ maths.\nNext we write"


def test_markdown_table_and_code_verbatim():
    blocks = parse_markdown(SAMPLE_MD)
    table = next(b for b in blocks if b.kind is BlockKind.table)
    assert table.text == "| a | b |\n|---|---|\n| 1 | $2$ |"
    code = next(b for b in blocks if b.kind is BlockKind.code)
    assert code.text == '```python\n# not a heading\nx = "$$"\n```'


def test_markdown_table_without_outer_pipes_gets_them():
    table = parse_markdown("a | b\n--- | ---\n1 | 2\n")[0]
    assert table.kind is BlockKind.table
    assert all(line.startswith("|") and line.endswith("|") for line in table.text.splitlines())


def test_library_lectures_keep_maths_tables_and_code_whole():
    lectures = sorted((LIBRARY_ROOT / "markdown").glob("*.md"))
    assert len(lectures) == 40
    for path in lectures:
        output = parse_source(path, "markdown")
        assert output.parser_version == parser_version(output.parser) and not output.garbled_text
        canonical, _ = assemble_canonical(output.raw_blocks)
        assert not scan(canonical).unbalanced - {"$"}, path.name  # a lone dollar may be a price
        for block in output.raw_blocks:
            assert block.text.strip()
            if block.kind is BlockKind.formula:
                assert block.text.strip().startswith("$$") and block.text.rstrip().endswith("$$")
            if block.kind is not BlockKind.code:
                assert block.text.count("$$") % 2 == 0, (path.name, block.text[:80])
            if block.kind is BlockKind.table:
                assert all(line.startswith("|") for line in block.text.splitlines())
            if block.kind is BlockKind.code:
                assert block.text.startswith("```") and block.text.endswith("```")


def test_pdf_headings_paragraphs_and_pages():
    output = parse_source(PDF / "pav_using_markowitzr.pdf", "pdf", parser="pdfium")
    assert output.parser == "pdfium" and output.parser_version == f"{PARSER_VERSION}+pdfium"
    assert output.pages == 12 and not output.garbled_text
    blocks = output.raw_blocks
    assert all(b.text.strip() for b in blocks)
    assert all(1 <= b.page_start <= b.page_end <= output.pages for b in blocks)
    headings = {b.text: b for b in blocks if b.kind is BlockKind.heading}
    assert headings["Using the MarkowitzR package"].page_start == 1
    assert headings["1 Introduction"].page_start == 1
    assert headings["2.1 Fake data"].level > headings["2 Example usage"].level
    assert sum(b.kind is BlockKind.paragraph for b in blocks) >= 10
    assert any(b.kind is BlockKind.code and b.text.startswith("```\n") for b in blocks)
    assert any(b.kind is BlockKind.formula and b.text.startswith("$$") for b in blocks)
    pages = [b.page_start for b in blocks]
    assert pages == sorted(pages) and pages[-1] >= 10


def test_pdf_two_column_reading_order_and_furniture():
    blocks = parse_source(PDF / "ardia_hoogerheide_bayesian_garch11_student_t.pdf", "pdf").raw_blocks
    text = " ".join("\n\n".join(b.text for b in blocks).split())
    assert 0 <= text.index("Abstract This note presents") < text.index("Introduction Research on")
    # the sentence that runs from the foot of column 1 to the head of column 2 stays whole
    assert "rgarch (Ghalanos, 2010) and tseries (Trapletti and Hornik, 2009)." in text
    assert "CONTRIBUTED RESEARCH ARTICLES" not in text  # running header dropped
    assert not any(re.fullmatch(r"\d{1,3}", b.text.strip()) for b in blocks)  # bare page numbers


def test_pdf_dehyphenation_is_conservative():
    assert join_lines([f"the condi{HYPHEN_MARK}", "tional mean"], set()) == "the conditional mean"
    assert join_lines([f"a two{HYPHEN_MARK}", "sided test"], {"two-sided"}) == "a two-sided test"
    assert join_lines([f"GARCH{HYPHEN_MARK}", "M model"], set()) == "GARCH-M model"


def test_pdf_numeric_table_becomes_a_pipe_table():
    blocks = parse_source(PDF / "kastner_stochvol_jss.pdf", "pdf").raw_blocks
    tables = [b for b in blocks if b.kind is BlockKind.table]
    table = next(t for t in tables if t.text.startswith("| Currency | SV | GARCH | homoskedastic |"))
    assert table.page_start == 28 and "| AUD | 7938 | 7890 | 7554 |" in table.text


def test_slide_deck_parses_to_titled_slides():
    output = parse_source(PDF / "palomar_risk_parity_portfolios_slides_rfinance2019.pdf", "pdf")
    headings = [b for b in output.raw_blocks if b.kind is BlockKind.heading]
    titles = {b.text for b in headings}
    assert {"Markowitz portfolio", "Risk parity portfolio (RPP)"} <= titles
    assert len({b.page_start for b in headings}) >= 10
    assert all(1 <= b.page_start <= output.pages == 15 for b in output.raw_blocks)


def test_garbled_score_separates_broken_font_maps():
    assert is_garbled(garbled_score("❙t❛♥❞❛r❞ ❊rr♦rs ❢♦r ❘✐s❦ ❛♥❞ P❡r❢♦r♠❛♥❝❡"))
    assert not is_garbled(garbled_score("Standard errors for risk and performance, σ² ≤ ∑ wᵢ → ∞."))
    assert garbled_score("") == 0.0


def test_garbled_pdf_is_flagged_and_text_kept():
    output = parse_source(PDF / "peterson_portfolio_returns_vignette.pdf", "pdf")
    assert output.garbled_text and output.garbled_score > 0.5
    assert "❆❜str❛❝t" in "\n".join(b.text for b in output.raw_blocks)  # never "repaired"


@pytest.mark.slow
def test_garbled_flag_over_the_whole_library():
    flagged = set()
    for path in sorted(PDF.glob("*.pdf")) + sorted((LIBRARY_ROOT / "markdown").glob("*.md")):
        output = parsed(path, "pdf" if path.suffix == ".pdf" else "markdown")
        assert all(b.text.strip() for b in output.raw_blocks), path.name
        if output.garbled_text:
            flagged.add(path.name)
    assert flagged == GARBLED


def test_pdf_parser_selection(monkeypatch):
    monkeypatch.setenv(PDF_PARSER_SETTING, "no-such-parser")
    with pytest.raises(ValueError, match="unknown PDF parser"):
        parse_source(PDF / "pav_using_markowitzr.pdf", "pdf")
    with pytest.raises(ValueError, match="unknown source format"):
        parse_source(PDF / "pav_using_markowitzr.pdf", "docx")


def test_mineru_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "docvortex", None)  # as if not installed
    with pytest.raises(ParserUnavailable, match="docvortex"):
        parse_source(PDF / "pav_using_markowitzr.pdf", "pdf", parser="mineru")


def test_mineru_html_tables_become_pipe_tables():
    markup = "<table><tr><th>a</th><th>b|c</th></tr><tr><td>1</td><td>2&amp;3</td></tr></table>"
    assert html_table_to_pipe(markup) == "| a | b\\|c |\n|---|---|\n| 1 | 2&3 |"
