"""A quote holding the document's own literal dots (`diag(σ21 , σ22 , ..., σn2)`) verifies raw when
it is a raw substring, before any reading of the dots as an ellipsis; where it matches only after
normalisation, it is one `verified_normalised` span, not parts joined by an elision. A changed part
is still refused, and a true elision still joins its parts."""

from __future__ import annotations

import pytest

from serving.citation.verify import Budget, verify_quote
from tests.serving.test_citation import UNHURRIED
from tests.serving.test_citation_noise import _check, corpus  # noqa: F401  (its state)

DIAG = "Σ = diag(σ21 , σ22 , ..., σn2) for n uncorrelated assets"


def test_the_documents_own_dots_verify_raw_when_the_quote_is_raw(corpus):  # noqa: F811
    _check(corpus, "pdf", DIAG, "verified", DIAG)
    _check(corpus, "pdf", "diag(σ21 , σ22 , ..., σn2)", "verified", "diag(σ21 , σ22 , ..., σn2)")


@pytest.mark.parametrize(
    "quote",
    [
        "Σ = diag(σ21, σ22, ..., σn2) for n uncorrelated assets",
        "Σ = diag(σ21 , σ22 , …, σn2) for n uncorrelated assets",
        "Σ = diag(σ21 , σ22 , … σn2) for n uncorrelated assets",
        "Σ = diag(σ21 , σ22 ,...\nσn2) for n uncorrelated assets",
        "Σ = diag(σ21, σ22, . . . , σn2) for n uncorrelated assets",
    ],
)
def test_the_documents_own_dots_matched_after_normalisation_are_one_span(corpus, quote):  # noqa: F811
    _check(corpus, "pdf", quote, "verified_normalised", DIAG)


def test_spaced_dots_in_the_document_read_as_dots(corpus):  # noqa: F811
    covers = "Let x1, x2, . . . , xn be i.i.d. draws"
    _check(corpus, "pdf", "Let x1, x2, ..., xn be i.i.d. draws", "verified_normalised", covers)
    _check(corpus, "pdf", "Let x1, x2, …, xn be i.i.d. draws", "verified_normalised", covers)


def test_literal_dots_with_a_changed_part_are_refused(corpus):  # noqa: F811
    reader, ids = corpus
    for quote in (
        "Σ = diag(σ21 , σ23 , ..., σn2) for n uncorrelated assets",
        "Σ = diag(σ21, σ22, ..., σm2) for n uncorrelated assets",
        "Let x1, x3, ..., xn be i.i.d. draws",
    ):
        result = verify_quote(reader, ids["pdf"], quote, budget=Budget(UNHURRIED))
        assert result.status == "not_found", quote


def test_a_true_elision_still_joins_parts(corpus):  # noqa: F811
    reader, ids = corpus
    result = verify_quote(reader, ids["pdf"], "We assume Σ = diag(σ21 … for n uncorrelated assets")
    text = reader.canonical_text(ids["pdf"])
    assert result.status == "verified"
    assert [text[s:e] for s, e in result.offsets] == ["We assume Σ = diag(σ21", "for n uncorrelated assets"]
