"""A quote of a document whose lost ligatures were restored at parse time (ingest.parsing.ligatures)
verifies in either form: as the canonical text now reads ('coefficient'), as an older copy or the
PDF viewer gives it ('coecient', read through the recorded restorations), or with the ligature's
control character ('co\\x1eecient', read through the recorded glyph repairs); a word the text
writes as it is ('t') is never read as a restored one ('fit')."""

from __future__ import annotations

import pytest

from corpus.models import (
    TextQuality,
)
from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout
from serving.citation.verify import verify_batch, verify_quote
from tests.serving.test_citation import _write_document

RESTORED = [
    "The first coefficient of the effect is estimated by the fitted model of Kalbfleisch.",
    "At time t the hazard is fit again; the fit is then shown in a figure.",
]
QUALITY = TextQuality(
    words=30,
    attested_share=1.0,
    unknown_glyphs=0,
    repairs={"\x1b→ff": 1, "\x1c→fi": 5, "\x1d→fl": 1, "\x1e→ffi": 1},
    ligatures={
        "rst→first": 1,
        "coecient→coefficient": 1,
        "eect→effect": 1,
        "tted→fitted": 1,
        "Kalbeisch→Kalbfleisch": 1,
        "t→fit": 2,
        "gure→figure": 1,
    },
    low_quality=False,
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[CorpusReader, str, str]:
    layout = StateLayout(tmp_path_factory.mktemp("state")).ensure()
    restored = _write_document(layout, "restored.pdf", RESTORED, "pdf", QUALITY)
    unrecorded = _write_document(layout, "unrecorded.pdf", RESTORED, "pdf")
    return CorpusReader.open(layout), restored, unrecorded


def _span(reader: CorpusReader, document_id: str, result) -> str:
    (start, end), *_ = result.offsets
    return reader.canonical_text(document_id)[start:end]


def test_the_restored_text_verifies_as_it_reads(corpus):
    reader, doc, _ = corpus
    result = verify_quote(reader, doc, "The first coefficient of the effect is estimated")
    assert result.status == "verified"


def test_a_quote_with_the_words_as_they_read_before_verifies(corpus):
    reader, doc, _ = corpus
    quote = "The rst coecient of the eect is estimated by the tted model of Kalbeisch"
    result = verify_quote(reader, doc, quote)
    assert result.status == "verified_normalised"
    assert result.quote == quote
    assert _span(reader, doc, result) == (
        "The first coefficient of the effect is estimated by the fitted model of Kalbfleisch"
    )


def test_a_quote_with_the_ligature_characters_verifies(corpus):
    reader, doc, _ = corpus
    result = verify_quote(reader, doc, "The \x1crst coe\x1ecient of the e\x1bect")
    assert result.status == "verified_normalised"
    assert _span(reader, doc, result) == "The first coefficient of the effect"


def test_a_word_the_text_writes_as_it_is_is_not_read_as_restored(corpus):
    """'t→fit' was restored somewhere, yet the text writes 't' itself: the quote's 't' stays 't'."""
    reader, doc, _ = corpus
    assert verify_quote(reader, doc, "At time t the hazard is fit again").status == "verified"
    result = verify_quote(reader, doc, "the hazard is t again; the t is then shown in a gure")
    assert result.status == "not_found"  # 't' is a word of the text: never read as 'fit'


def test_a_capitalised_word_reads_through_too(corpus):
    reader, doc, _ = corpus
    result = verify_quote(reader, doc, "Rst coecient of the eect")
    assert result.status == "verified_normalised"
    assert _span(reader, doc, result) == "first coefficient of the effect"


def test_without_a_record_the_old_form_is_not_found(corpus):
    reader, _, unrecorded = corpus
    result = verify_quote(reader, unrecorded, "The rst coecient of the eect is estimated")
    assert result.status == "not_found"


def test_a_batch_reads_each_quote_through_its_own_document(corpus):
    reader, doc, unrecorded = corpus
    items = [
        {"document_id": doc, "quote": "shown in a gure, at time t"},
        {"document_id": unrecorded, "quote": "then shown in a gure."},
        {"document_id": doc, "quote": "then shown in a gure."},
    ]
    assert [r.status for r in verify_batch(reader, items)] == ["not_found", "not_found", "verified_normalised"]


def test_the_table_leaves_out_a_word_restored_two_ways():
    quality = QUALITY.model_copy(update={"ligatures": {"o→off": 2, "o→fio": 1, "rst→first": 3}})
    assert quality.ligature_table() == {"rst": "first"}
