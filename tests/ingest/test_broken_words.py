"""A word hyphenated across a page or column break (two blocks): rejoined without the hyphen when
the joined word is attested (the document, the library or the English list), with it when the
document writes the pair hyphenated, when both halves are words (a compound) or when no break TeX
makes ends there; a name's halves are rejoined; an address, a capital or a code block continues
nothing; a line taken for a heading that begins with the rest of the word continues it."""

from __future__ import annotations

import pytest

from corpus.models import BlockKind, RawBlock
from ingest.parsing.pdf_text import join_broken_blocks
from ingest.parsing.vocabulary import dictionary_words


def _block(text: str, page: int, kind: BlockKind = BlockKind.paragraph) -> RawBlock:
    return RawBlock(kind=kind, text=text, page_start=page, page_end=page, regions=[(page, 10.0, 20.0, 300.0, 40.0)])


@pytest.mark.parametrize(
    ("tail", "head", "joined"),
    [
        ("Sage, Thou-", "sand Oaks CA", "Sage, Thousand Oaks CA"),  # the English list attests it
        ("finding groups using model-", "based cluster analysis", "finding groups using model-based cluster analysis"),
        ("In PR Kr-", "ishnaiah, PK Sen", "In PR Krishnaiah, PK Sen"),  # a name: its halves are no words
        ("the permutation p-", "value is returned", "the permutation p-value is returned"),  # one letter
        ("maximum bias of MM-", "estimates and", "maximum bias of MM-estimates and"),  # a capital
        ("a genome-", "wide view", "a genome-wide view"),
    ],
)
def test_the_hyphen_stays_only_where_the_pair_is_no_broken_word(tail, head, joined):
    out, joins = join_broken_blocks([_block(tail, 1), _block(head, 2)], {"genome", "wide"}, set())
    assert joins == 1 and [b.text for b in out] == [joined]
    assert (out[0].page_start, out[0].page_end) == (1, 2)


def test_the_english_list_holds_long_words_only():
    words = dictionary_words()
    assert {"thousand", "permutation", "concentrations"} <= words
    assert not {"ab", "the", "genomewide", "krishnaiah"} & words


@pytest.mark.parametrize(
    "head",
    [
        _block("https://cran.r-project.org/package=Rcpp", 2),  # an address is no rest of a word
        _block("Qux rest", 2),
        _block("pute the statistics", 2, BlockKind.code),
    ],
)
def test_nothing_continues_a_word_but_running_lower_case_text(head):
    out, joins = join_broken_blocks([_block("beyond the scope of this pa-", 1), head], set(), set())
    assert joins == 0 and len(out) == 2


def test_a_lower_case_line_taken_for_a_heading_continues_the_word():
    """A body line whose size was misread is a heading to the roles; beginning with the rest of a
    hyphenated word, it is the paragraph's continuation."""
    blocks = [_block("doTest() allows to com-", 1), _block("pute the statistics", 1, BlockKind.heading)]
    out, joins = join_broken_blocks(blocks, set(), set())
    assert joins == 1 and out[0].kind == BlockKind.paragraph
    assert out[0].text == "doTest() allows to compute the statistics"


def test_a_run_in_heading_ending_in_a_broken_word_becomes_its_paragraph():
    blocks = [
        _block("2.5.1.2 Including plain text Although not com-", 1, BlockKind.heading),
        _block("monly needed, it is possible.", 1),
    ]
    out, joins = join_broken_blocks(blocks, set(), set())
    assert joins == 1 and out[0].kind == BlockKind.paragraph
    assert out[0].text == "2.5.1.2 Including plain text Although not commonly needed, it is possible."
