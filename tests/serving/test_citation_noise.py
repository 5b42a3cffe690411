"""Quote forms that are extraction or markup noise verify as `verified_normalised` (docs/DESIGN.md §5),
and a changed word, number or symbol in the same quote is still refused:

* a Markdown table row copied without its pipes, or with some (pipes are markup only in a table row);
* R output lines inside a fenced code block, `## ` and all (there `##` is text, not a heading);
* a space before , . ; : ) or after ( that one side has and the other has not;
* accents, combining after the letter (a typed `µ̂`) or spacing before or after it (a PDF's `ˆµ`, `µˆ`).

The document's own `...` inside a quote: tests/serving/test_citation_literal_dots.py.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout
from corpus.text.markup import skip_markup
from corpus.text.normalise import canonical_end, canonical_start, normalise_with_map
from serving.citation.verify import Budget, verify_quote
from tests.serving.test_citation import UNHURRIED, _write_document

TABLE = [
    "The trade schedule below sets the impact of each execution speed.",
    "| Item | Fast | Medium | Slow |\n| -----|------|--------|------- |\n"
    "| Trade duration (day fraction %) | 10% | 20% | 50% |\n"
    "| Temporary Impact (bps) | 22 | 15 | 8 |\n"
    "| Total Impact (bps) | 32 | 25 | 18 |",
    "The conditional probability P(A | B) is the chance of A given that B holds.",
]
CODE = [
    "## Robust covariance estimators",
    "The robust estimators downweight the outlying returns.",
    "```\nprint.data.frame(dat)\n## Mean StdDev SR\n## GmvLOcovClassic 0.107 0.25 0.428\n"
    "## GmvLOcovRobMcd 0.145 0.28 0.518\n## GmvLOcovRobTSGS 0.148 0.277 0.536\n```",
    "The covClassic based portfolio has the smallest Sharpe ratio of the five.",
]
PDF = [
    "The sample covariance, say W, the estimated covariance matrix of the returns, is singular when n exceeds T.",
    "Robust estimators (see Section 4 ) are less efficient ; they trade variance for bias .",
    "The critical value is cv = (ˆµ + ˆσz0.975)3/2 for the upper bound of the interval.",
    "where µˆ is the sample mean and σˆ2 the sample variance of the excess returns.",
    "the smoothed estimate ˜ζ of the signal-to-noise ratio and the average return ¯x over the window",
    "the derivative x˙ of the state, the Schr¨odinger equation and the work of Jos´e and voilˋa in the appendix",
    "We assume Σ = diag(σ21 , σ22 , ..., σn2) for n uncorrelated assets in the portfolio.",
    "Let x1, x2, . . . , xn be i.i.d. draws from a normal distribution with mean zero.",
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[CorpusReader, dict[str, str]]:
    layout = StateLayout(tmp_path_factory.mktemp("noise")).ensure()
    ids = {
        "table": _write_document(layout, "table.md", TABLE, "markdown"),
        "code": _write_document(layout, "code.md", CODE, "markdown"),
        "pdf": _write_document(layout, "paper.pdf", PDF, "pdf"),
    }
    return CorpusReader.open(layout), ids


def _check(corpus, doc: str, quote: str, status: str, covers: str | None = None):
    """Verify `quote` in document `doc`; the status must be `status`, and a match's one range must
    hold exactly `covers` of the canonical text (when given)."""
    reader, ids = corpus
    result = verify_quote(reader, ids[doc], quote, budget=Budget(UNHURRIED))
    assert result.status == status, (quote, result.status, result.reason)
    if status == "not_found":
        assert result.offsets == [] and result.reason_code == "absent", (quote, result.reason)
    elif covers is not None:
        text = reader.canonical_text(ids[doc])
        assert [text[s:e] for s, e in result.offsets] == [covers], quote
    return result


# -- a. table rows: pipes are markup in a table row, a row boundary is whitespace ------------------

ROWS = "50% |\n| Temporary Impact (bps) | 22 | 15"


@pytest.mark.parametrize(
    "quote",
    [
        "50% Temporary Impact (bps) 22 15",
        "50% | Temporary Impact (bps) | 22 | 15",
        "50% | | Temporary Impact (bps) | 22 | 15",
        "50% |\nTemporary Impact (bps) | 22 | 15",
    ],
)
def test_a_table_row_with_or_without_its_pipes_is_normalised(corpus, quote):
    _check(corpus, "table", quote, "verified_normalised", ROWS)


def test_a_table_row_copied_with_its_pipes_is_raw(corpus):
    _check(corpus, "table", "| Temporary Impact (bps) | 22 | 15 | 8 |", "verified")


@pytest.mark.parametrize(
    "quote",
    [
        "50% | Temporary Impact (bps) | 23 | 15",  # a number
        "50% Temporary Impact (bps) 22 16",
        "50% | Permanent Impact (bps) | 22 | 15",  # a word
        "50% | Temporary Impact (bps) + 22 | 15",  # a symbol
    ],
)
def test_a_changed_cell_is_refused(corpus, quote):
    _check(corpus, "table", quote, "not_found")


def test_a_pipe_outside_a_table_is_text(corpus):
    _check(corpus, "table", "The conditional probability P(A | B) is the chance", "verified")
    _check(corpus, "table", "The conditional probability P(A | B)\nis the chance", "verified_normalised")
    _check(corpus, "table", "The conditional probability P(A B) is the chance", "not_found")  # pipe dropped
    _check(corpus, "table", "the chance of A | given that B holds", "not_found")  # pipe added
    _check(corpus, "table", "| the chance of A given that B holds", "not_found")


# -- b. `##` at a line's start inside a fenced code block is text ---------------------------------

R_OUTPUT = "## GmvLOcovRobMcd 0.145 0.28 0.518\n## GmvLOcovRobTSGS 0.148 0.277 0.536"


@pytest.mark.parametrize(
    "quote",
    [
        "## GmvLOcovRobMcd 0.145 0.28 0.518 ## GmvLOcovRobTSGS 0.148 0.277 0.536",
        "##  GmvLOcovRobMcd 0.145 0.28 0.518\n\n## GmvLOcovRobTSGS 0.148 0.277 0.536",
        "```\n## GmvLOcovRobMcd 0.145 0.28 0.518 ## GmvLOcovRobTSGS 0.148 0.277 0.536",
    ],
)
def test_r_output_lines_copied_verbatim_are_normalised(corpus, quote):
    _check(corpus, "code", quote, "verified_normalised", R_OUTPUT)


def test_r_output_lines_changed_are_refused(corpus):
    _check(corpus, "code", R_OUTPUT, "verified")
    _check(corpus, "code", "## GmvLOcovRobMcd 0.145 0.28 0.518 ## GmvLOcovRobTSGS 0.148 0.277 0.537", "not_found")
    _check(corpus, "code", "## GmvLOcovRobMcd 0.145 0.28 0.518 ## GmvLOcovRobRocke 0.148 0.277 0.536", "not_found")
    # in code the hashes are text: a quote that drops them changed the text
    _check(corpus, "code", "GmvLOcovRobMcd 0.145 0.28 0.518 GmvLOcovRobTSGS 0.148 0.277 0.536", "not_found")


def test_a_heading_outside_code_is_still_markup(corpus):
    covers = "Robust covariance estimators\n\nThe robust estimators downweight"
    _check(
        corpus, "code", "Robust covariance estimators The robust estimators downweight", "verified_normalised", covers
    )
    _check(corpus, "code", "## Robust covariance estimators The robust estimators downweight", "verified_normalised")


def test_fences_open_and_close():
    text = "# Title\n```r\n## out 1\n# comment\n```\n## Section\n~~~\n## x\n```\n## y\n~~~\n## z"
    # a ``` line inside a ~~~ block does not close it (it goes, as every fence line does)
    assert skip_markup(text)[0] == " Title\n\n## out 1\n# comment\n\n Section\n\n## x\n\n## y\n\n z"
    assert skip_markup(text, headings=False)[0] == text.replace("```r", "").replace("```", "").replace("~~~", "")


# -- c. a space before , . ; : ) or after ( -------------------------------------------------------


@pytest.mark.parametrize(
    "quote, covers",
    [
        ("say W , the estimated covariance matrix", "say W, the estimated covariance matrix"),
        ("returns , is singular when n exceeds T .", "returns, is singular when n exceeds T."),
        (
            "Robust estimators (see Section 4) are less efficient;",
            "Robust estimators (see Section 4 ) are less efficient ;",
        ),
        ("estimators ( see Section 4 ) are", "estimators (see Section 4 ) are"),
        ("they trade variance for bias.", "they trade variance for bias ."),
    ],
)
def test_a_space_before_punctuation_is_normalised(corpus, quote, covers):
    _check(corpus, "pdf", quote, "verified_normalised", covers)


@pytest.mark.parametrize(
    "quote",
    [
        "say V , the estimated covariance matrix",  # a word
        "say W ; the estimated covariance matrix",  # a symbol
        "say W . the estimated covariance matrix",
        "Robust estimators (see Section 5) are less efficient;",  # a number
        "Robust estimators see Section 4) are less efficient;",  # a bracket dropped
    ],
)
def test_a_changed_word_or_symbol_near_punctuation_is_refused(corpus, quote):
    _check(corpus, "pdf", quote, "not_found")


# -- d. accents: combining or spacing, before or after the letter ---------------------------------


@pytest.mark.parametrize(
    "quote, covers",
    [
        ("cv = (µ̂ + σ̂z0.975 )3/2", "cv = (ˆµ + ˆσz0.975)3/2"),  # U+0302 after; the document: U+02C6 before
        ("cv = (μ̂ + σ̂z0.975)3/2", "cv = (ˆµ + ˆσz0.975)3/2"),  # Greek mu, not the micro sign
        (
            "where µ̂ is the sample mean and σ̂2 the sample variance",
            "where µˆ is the sample mean and σˆ2 the sample variance",
        ),
        ("the smoothed estimate ζ̃ of the", "the smoothed estimate ˜ζ of the"),  # tilde
        ("the average return x̄ over the window", "the average return ¯x over the window"),  # macron
        ("the average return x\u0305 over the window", "the average return ¯x over the window"),  # overline
        ("the derivative ẋ of the state", "the derivative x˙ of the state"),  # dot (precomposed in the quote)
        ("the Schrödinger equation", "the Schr¨odinger equation"),  # diaeresis
        ("the work of José and voilà in", "the work of Jos´e and voilˋa in"),  # acute, grave
        ("The critical value is cv = (ˆµ + ˆσz0.975)", "The critical value is cv = (ˆµ + ˆσz0.975)"),
    ],
)
def test_accents_in_either_form_are_normalised(corpus, quote, covers):
    status = "verified" if quote == covers else "verified_normalised"
    _check(corpus, "pdf", quote, status, covers)


@pytest.mark.parametrize(
    "quote",
    [
        "cv = (µ + σ̂z0.975 )3/2",  # a hat dropped: σ̂ is not σ
        "cv = (µ̂ + σz0.975 )3/2",
        "cv = (µ̃ + σ̂z0.975 )3/2",  # a hat turned into a tilde
        "cv = (µ̂ + σ̂z0.995 )3/2",  # a number
        "cv = (µ̂ - σ̂z0.975 )3/2",  # a symbol
        "where µ is the sample mean and σ̂2 the sample",
        "where µ̂ is the sample mean and σ2 the sample",
        "the smoothed estimate ζ of the signal-to-noise",
        "the average return x over the window",
        "the Schrodinger equation and the work",
        "the derivative x˙ of the stats",
    ],
)
def test_a_changed_accent_number_or_symbol_is_refused(corpus, quote):
    _check(corpus, "pdf", quote, "not_found")


def test_a_quote_ending_before_the_accent_of_its_last_letter_is_refused(corpus):
    _check(corpus, "pdf", "The critical value is cv = (ˆµ + σ", "not_found")  # the document's σ has a hat
    _check(corpus, "pdf", "The critical value is cv = (µ̂ + σ", "not_found")


def test_accent_forms_normalise_alike():
    same = [("(ˆµ + ˆσz)", "(µ̂ + σ̂z)", "(µˆ + σˆz)"), ("Schr¨odinger", "Schrödinger", "Schro\u0308dinger")]
    for forms in same:
        assert len({normalise_with_map(f)[0] for f in forms}) == 1, forms
    for a, b in [("σ̂", "σ"), ("σ̂", "σ̃"), ("x̄", "x"), ("ẋ", "x"), ("é", "e")]:
        assert normalise_with_map(a)[0] != normalise_with_map(b)[0], (a, b)


# -- the map back to canonical offsets stays exact -------------------------------------------------
# Whole words cut at whitespace normalise to a substring of the text's normalisation, and the
# canonical range found for it normalises back to it.

_TOKENS = st.sampled_from(
    ["alpha", "W", ",", ".", ";", "(", ")", "(x", "x)", "ˆµ", "µˆ", "µ̂", "ˆσz0.975)3/2", "Schr¨odinger", "σˆ2,"]
    + ["x¯", "¯x", "é", "e\u0301", "...", "…", "Jos´e", "βˆ0", "ˆ", "naïve", "x̅", "ẑ0"]
)
_SEPARATORS = st.sampled_from([" ", "\n", "  ", " \n"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_TOKENS, _SEPARATORS), min_size=2, max_size=20), st.data())
def test_whole_word_slices_normalise_into_the_text_and_map_back(pairs, data):
    text = "".join(token + sep for token, sep in pairs)
    norm, origin = normalise_with_map(text)
    assert len(norm) == len(origin) and origin == sorted(origin) and all(0 <= i < len(text) for i in origin)
    for ch, at in zip(norm, origin):  # an accent maps to its letter's run; everything else to its source
        source = unicodedata.normalize("NFKD", text[at]).casefold()
        assert ch == " " or all(unicodedata.combining(c) or c in source for c in unicodedata.normalize("NFD", ch))
    starts = [0] + [
        i + 1 for i, ch in enumerate(text) if ch in " \n" and i + 1 < len(text) and text[i + 1] not in " \n"
    ]
    a, b = sorted(data.draw(st.lists(st.sampled_from(range(len(starts))), min_size=2, max_size=2, unique=True)))
    piece = text[starts[a] : starts[b]]
    piece_norm = normalise_with_map(piece)[0]
    # (markup, read line by line, has its own: test_markup_verification.py); a lone accent first
    # may be found on a letter, as the accent of its run
    assume(piece_norm and not unicodedata.combining(piece_norm[0]))
    glued = piece_norm[0].isalpha()  # a whole word: not found inside another one's run of letters
    found = [i for i in _finds(norm, piece_norm) if not (i and glued and norm[i - 1].isalpha())]
    assert found, (piece, piece_norm, norm)
    back = []  # what the canonical range of each occurrence normalises to: one is the slice's
    for at in found:
        start, end = canonical_start(text, origin, at), canonical_end(text, origin, at + len(piece_norm) - 1)
        back.append(normalise_with_map(text[start:end])[0])
    assert piece_norm in back, (piece, back)


def _finds(text: str, needle: str):
    at = text.find(needle)
    while at >= 0:
        yield at
        at = text.find(needle, at + 1)
