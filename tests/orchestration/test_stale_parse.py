"""A document parsed by another parser version than the code's is parsed again by the next
ingest (a PARSER_VERSION bump reaches every state, not only new documents)."""

from __future__ import annotations

import pytest

from corpus.state.layout import StateLayout, atomic_write_json, read_json
from ingest.passages.parse import expected_parser_version, parse_is_stale

LECTURE = """# Variance

The variance of returns is the mean squared deviation from their average; its square root, the
standard deviation, is the volatility a risk report quotes. Annualise it by the square root of
the number of periods in a year.
"""


@pytest.mark.slow
def test_a_parse_from_another_parser_version_is_made_again(tmp_path):
    from orchestration.runner import ingest

    source = tmp_path / "variance.md"
    source.write_text(LECTURE, encoding="utf-8")
    layout = StateLayout(tmp_path / "state")
    assert ingest(layout, [(source, None)]).documents == 1
    (document_id,) = layout.registered_document_ids()
    parsed = read_json(layout.parsed_blocks(document_id))
    assert not parse_is_stale(layout, document_id)
    atomic_write_json(layout.parsed_blocks(document_id), {**parsed, "parser_version": "an-older-parser"})
    assert parse_is_stale(layout, document_id)
    report = ingest(layout, [])
    assert not report.set_aside and report.documents == 1
    assert read_json(layout.parsed_blocks(document_id))["parser_version"] == expected_parser_version("markdown")
    assert not parse_is_stale(layout, document_id)
