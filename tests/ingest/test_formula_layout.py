"""The formula-layout rule (ingest.parsing.formula_layout) on lines built by hand, and on a real
PDF: the regions of every block, and the flag on display formulas."""

from __future__ import annotations

from collections import Counter

from corpus.models import BlockKind
from ingest.parsing.formula_layout import formula_text_unreliable, regions_of
from ingest.parsing.pdf import parse_pdf
from ingest.parsing.pdf_lines import Line
from ingest.sources.library import LIBRARY_ROOT


def _line(text, x0, top, x1, size=10.0, page=1, sizes=None):
    return Line(
        page,
        text,
        x0,
        x1,
        top,
        top + size,
        size,
        "CMMI10",
        0.0,
        0.8,
        Counter(sizes or {size: len(text.replace(" ", ""))}),
    )


def test_a_plain_one_line_display_is_reliable():
    assert not formula_text_unreliable([_line("R = BF + ε, (7)", 200, 100, 400)])


def test_flattened_scripts_make_it_unreliable():
    # 'σij = ρ√σiiσjj' : the indices were set at 7 pt under a 10 pt formula
    line = _line("σij = ρ√σiiσjj", 200, 100, 400, sizes={10.0: 6, 7.0: 6})
    assert formula_text_unreliable([line])


def test_a_fraction_stacked_over_its_denominator_is_unreliable():
    numerator, denominator = _line("1", 250, 100, 260), _line("n", 250, 111, 260)
    assert formula_text_unreliable([numerator, denominator])


def test_a_glyph_order_that_jumps_back_up_is_unreliable():
    assert formula_text_unreliable([_line("x = a + b", 200, 120, 300), _line("c", 320, 100, 330)])


def test_aligned_lines_with_an_equation_number_between_them_are_reliable():
    lines = [_line("Φ = E[R]", 200, 100, 300), _line("(1)", 500, 108, 515), _line("Ψ = E[S]", 200, 118, 300)]
    assert not formula_text_unreliable(lines)


def test_regions_are_one_box_per_page_around_the_lines():
    lines = [_line("a", 100, 50, 120), _line("b", 90, 70, 110), _line("c", 10, 20, 30, page=2)]
    assert regions_of(lines) == [(1, 89.5, 49.5, 120.5, 80.5), (2, 9.5, 19.5, 30.5, 30.5)]


def test_every_pdf_block_keeps_its_regions_and_formulas_are_judged():
    parse = parse_pdf(LIBRARY_ROOT / "pdf" / "cornilly_peterson_estimation_higher_order_comoments.pdf")
    assert all(b.regions for b in parse.blocks)
    for block in parse.blocks:
        assert {r[0] for r in block.regions} == set(
            range(block.page_start, block.page_end + 1)
        ) or block.page_start == block.page_end == block.regions[0][0]
        assert all(x0 < x1 and top < bottom for _, x0, top, x1, bottom in block.regions)
    formulas = [b for b in parse.blocks if b.kind is BlockKind.formula]
    flagged = [b for b in formulas if b.formula_text_unreliable]
    assert formulas and 0 < len(flagged) < len(formulas)  # the rule separates, it does not flag all
    assert not any(b.formula_text_unreliable for b in parse.blocks if b.kind is not BlockKind.formula)
