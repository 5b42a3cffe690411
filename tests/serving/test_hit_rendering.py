"""A search hit's compact text: rows shown without their table's header get the header above them."""

from __future__ import annotations

from serving.answer.hit_rendering import table_header

TABLE = "| quantile | 1D | 5D |\n|---|---|---|\n| top | 0.12 | 0.20 |\n| bottom | -0.05 | -0.09 |"
TEXT = f"The tear sheet reads as follows.\n\n{TABLE}\n\nThe spread widens with the horizon."


def test_rows_inside_a_table_body_get_its_header_and_separator():
    header = "| quantile | 1D | 5D |\n|---|---|---|"
    assert table_header(TEXT, TEXT.index("| top")) == header
    assert table_header(TEXT, TEXT.index("| bottom")) == header


def test_no_header_outside_a_table_or_when_the_window_starts_at_it():
    assert table_header(TEXT, 0) is None
    assert table_header(TEXT, TEXT.index("| quantile")) is None
    assert table_header(TEXT, TEXT.index("The spread")) is None


def test_a_table_without_a_separator_takes_its_first_row():
    text = "| a | b |\n| 1 | 2 |\n| 3 | 4 |"
    assert table_header(text, text.index("| 3")) == "| a | b |"
