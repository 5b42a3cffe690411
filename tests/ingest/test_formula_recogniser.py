"""The formula-recogniser path, wired with a test double: a recogniser configured by
QUANT_RAG_FORMULA_RECOGNISER gets each display formula's rendered region and its LaTeX becomes the
block's text, marked as recognised (and no longer unreliable)."""

from __future__ import annotations

import pytest

from corpus.config import FORMULA_RECOGNISER_ENV
from corpus.models import BlockKind
from corpus.text.canonical import assemble_canonical
from corpus.text.safe_cut import scan
from corpus.versions import PARSER_VERSION
from ingest.parsing import parse_source, parser_version
from ingest.parsing.formula_recogniser import RecogniserUnavailable, load_recogniser
from ingest.sources.library import LIBRARY_ROOT

PAPER = LIBRARY_ROOT / "pdf" / "cornilly_peterson_estimation_higher_order_comoments.pdf"
FAKE = """
import io
from PIL import Image
SEEN = []

def recognise(png):
    image = Image.open(io.BytesIO(png))      # a real PNG of the region, or this fails
    SEEN.append(image.size)
    return "\\\\frac{a_{%d}}{b}" % len(SEEN)
"""


@pytest.fixture()
def fake(tmp_path, monkeypatch):
    path = tmp_path / "fake_recogniser.py"
    path.write_text(FAKE)
    monkeypatch.setenv(FORMULA_RECOGNISER_ENV, f"{path}:recognise")
    load_recogniser.cache_clear()
    yield load_recogniser(f"{path}:recognise")
    load_recogniser.cache_clear()


def test_without_a_recogniser_the_text_layer_stays():
    blocks = parse_source(PAPER, "pdf").raw_blocks
    formulas = [b for b in blocks if b.kind is BlockKind.formula]
    assert formulas and not any(b.recognised_by for b in formulas)
    assert any(b.formula_text_unreliable for b in formulas)


def test_a_configured_recogniser_writes_latex_formulas(fake):
    output = parse_source(PAPER, "pdf")
    formulas = [b for b in output.raw_blocks if b.kind is BlockKind.formula]
    assert formulas and all(b.recognised_by == "fake_recogniser:recognise" for b in formulas)
    assert all(b.text.startswith("$$\n\\frac{a_{") and b.text.endswith("}}{b}\n$$") for b in formulas)
    assert not any(b.formula_text_unreliable for b in formulas)
    assert len(fake.__globals__["SEEN"]) == len(formulas)
    assert all(w > 20 and h > 10 for w, h in fake.__globals__["SEEN"])
    # the recogniser enters the version (setting it re-parses), and the text stays well formed
    assert (
        output.parser_version
        == parser_version("pdfium")
        == f"{PARSER_VERSION}+pdfium+formulas=fake_recogniser:recognise"
    )
    canonical, blocks = assemble_canonical(output.raw_blocks)
    assert "$$" not in scan(canonical).unbalanced  # every display closes
    assert [b.recognised_by for b in blocks if b.kind is BlockKind.formula] == [b.recognised_by for b in formulas]


def test_a_recogniser_that_fails_on_a_formula_keeps_its_text(tmp_path, monkeypatch):
    path = tmp_path / "broken.py"
    path.write_text("def recognise(png):\n    raise RuntimeError('model crashed')\n")
    monkeypatch.setenv(FORMULA_RECOGNISER_ENV, f"{path}:recognise")
    load_recogniser.cache_clear()
    plain = [b.text for b in parse_source(PAPER, "pdf").raw_blocks]
    monkeypatch.delenv(FORMULA_RECOGNISER_ENV)
    assert plain == [b.text for b in parse_source(PAPER, "pdf").raw_blocks]


@pytest.mark.parametrize("spec", ["no_colon", "not.a.module.anywhere:f", "json:no_such_name", "json:__doc__"])
def test_a_bad_setting_is_a_clear_error(spec):
    load_recogniser.cache_clear()
    with pytest.raises(RecogniserUnavailable, match=FORMULA_RECOGNISER_ENV):
        load_recogniser(spec)


def test_markdown_is_never_sent_to_the_recogniser(fake):
    output = parse_source(LIBRARY_ROOT / "markdown" / "quantopian_lecture07_variance.md", "markdown")
    assert output.parser_version == f"{PARSER_VERSION}+markdown-it" and not fake.__globals__["SEEN"]
