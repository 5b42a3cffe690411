"""forbidden_mask, written with regular expressions, marks exactly what the character loop it
replaced marked (kept here as the oracle), on generated text full of words, rows and formulas."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from corpus.text.safe_cut import _is_word, forbidden_mask, scan


def _loop_mask(text: str) -> bytearray:
    n = len(text)
    mask = bytearray(n + 1)
    for start, end, _ in scan(text).spans:
        for p in range(start + 1, end):
            mask[p] = 1
    for p in range(1, n):
        if text[p] != "\n" and _is_word(text[p]) and (_is_word(text[p - 1]) or text[p - 1] == "\\"):
            mask[p] = 1
    line_start = 0
    while line_start < n:
        line_end = text.find("\n", line_start)
        line_end = n if line_end < 0 else line_end
        if text[line_start:line_end].lstrip().startswith("|"):
            for p in range(line_start + 1, line_end):
                mask[p] = 1
        line_start = line_end + 1
    return mask


pieces = st.sampled_from(
    [
        "word",
        "é",
        "ß",
        "x_1",
        "\\alpha",
        "$x$",
        "$$y$$",
        "| a | b |",
        "  | c |",
        "\n",
        " ",
        "\t",
        "\u2003",
        "\x1c",
        "```\ncode\n```",
        "٣",
        "½",
        "GARCH(1,1)",
        "\\[z\\]",
        "naïve",
        "\r",
        "|",
        "_",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(pieces, max_size=60), st.text(max_size=40))
def test_the_mask_is_the_character_loops(parts, noise):
    text = "".join(parts) + noise
    assert forbidden_mask(text) == _loop_mask(text)
