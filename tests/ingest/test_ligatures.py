"""Ligatures a font's text map loses (ingest.parsing.ligatures): TeX's T1 and OT1 encodings put ff, fi,
fl, ffi and ffl at control codes; a font without a Unicode map for them (the bitmap fonts of many R
vignettes from Debian) gives pdfium the code, which the canonical text dropped ('coecient', 'rst').
The rule on words and characters, a generated PDF whose font has no map for its ligatures, the
survival and strucchange vignettes when present, and the word list's build."""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
from pathlib import Path

import pytest
from generated_pdf import pdf_with_unicode_map

from corpus.text.canonical import assemble_canonical
from ingest.parsing import parse_source
from ingest.parsing.ligatures import (
    Evidence,
    LigatureRepair,
    english_words,
    ligature_free_forms,
    restoration,
    restore_characters,
    restore_ligatures,
    restore_words,
)
from ingest.parsing.pdf_lines import Line
from ingest.parsing.validate import detect_format

REPO = Path(__file__).resolve().parents[2]
NOTHING: frozenset[str] = frozenset()
# `apt-get download r-cran-survival r-cran-strucchange` unpacked, or tools/debian_vignettes' corpus
VIGNETTES = [
    Path("/tmp/ext/usr/lib/R/site-library/{pkg}/doc/{name}.pdf"),
    Path("/work/debian/pdf/r-cran-{pkg}__{name}.pdf"),
]


def _evidence(document: str = "", english: set[str] | None = None, library: set[str] | None = None) -> Evidence:
    return Evidence(document, english=frozenset(english or ()), library=frozenset(library or ()))


# -- a word with no character left -----------------------------------------------------------------


def test_a_dropped_ligature_is_put_back_where_the_evidence_attests_one_word():
    evidence = _evidence(library={"coefficient", "first", "effect"})
    assert restoration("coecient", evidence) == "coefficient"  # ffi, not ff + i or fi
    assert restoration("rst", evidence) == "first"
    assert restoration("eect", evidence) == "effect"
    assert restoration("Eect", evidence) == "Effect"  # a capital stays; the ligature is lower-case


def test_the_document_itself_attests_a_restoration():
    assert restoration("rst", _evidence("The first step, then the rst one.")) == "first"


def test_nothing_attesting_the_restored_word_leaves_it_alone():
    assert restoration("rst", _evidence()) is None
    # the English list alone does not attest a guess: 'reated' (a 'created' that lost its c) is no 'reflated'
    assert restoration("reated", _evidence(english={"reflated"})) is None


def test_an_attested_word_is_never_changed():
    evidence = _evidence(english={"dene", "define", "flow", "ow"}, library={"define", "flow"})
    assert restoration("dene", evidence) is None  # English both ways: left as it is
    assert restoration("ow", evidence) is None  # and too short to guess in any case
    text = "We define the flow and its effect; the dene stays."
    assert restore_words(text, evidence, LigatureRepair()) == text


def test_two_attested_restorations_are_no_restoration():
    evidence = _evidence(library={"abffc", "abfic"})  # 'abc' with ff or with fi inserted
    assert restoration("abc", evidence) is None
    assert restoration("abc", _evidence(library={"abffc"})) == "abffc"


def test_a_capital_never_follows_an_inserted_ligature():
    assert restoration("Rst", _evidence(library={"first", "firstfi"})) is None
    assert restoration("RST", _evidence(library={"first"})) is None


def test_restored_words_are_recorded_with_their_counts():
    evidence = _evidence(library={"first", "coefficient"})
    repair = LigatureRepair()
    text = restore_words("The rst coecient, then the rst (x.rst rst_2 stay).", evidence, repair)
    assert text == "The first coefficient, then the first (x.rst rst_2 stay)."
    assert repair.words == {"rst→first": 2, "coecient→coefficient": 1}


def test_only_the_ligatures_asked_for_are_restored():
    evidence = _evidence(library={"first", "influences"})
    repair = LigatureRepair()
    assert restore_words("the rst inuences", evidence, repair, ["fl"]) == "the rst influences"
    assert repair.words == {"inuences→influences": 1}


# -- the character is there ---------------------------------------------------------------------------


def test_tex_ligature_codes_are_read_as_their_ligatures():
    evidence = _evidence(library={"first", "coefficient", "effect", "fluctuation"})
    repair = LigatureRepair()
    text = "The \x1crst coe\x1ecient of the e\x1bect: \x1ductuation."
    assert restore_characters(text, evidence, repair) == "The first coefficient of the effect: fluctuation."
    assert repair.characters == {"\x1b→ff": 1, "\x1c→fi": 1, "\x1d→fl": 1, "\x1e→ffi": 1}
    assert repair.words == {
        "coecient→coefficient": 1,
        "eect→effect": 1,
        "rst→first": 1,
        "uctuation→fluctuation": 1,
    }


def test_a_word_broken_at_a_line_end_is_read_whole():
    evidence = _evidence(library={"coefficient"})
    repair = LigatureRepair()
    assert restore_characters("the coe\x1e\u00ad\ncient", evidence, repair) == "the coeffi\u00ad\ncient"
    assert repair.words == {"coecient→coefficient": 1}


def test_a_math_symbol_at_a_ligature_code_stays():
    """OT1's fi code (0x0C) is also a math font's symbol: a strong reading restores it inside
    words, never before a capital or alone."""
    evidence = _evidence(library={"first", "final", "fixed", "find"})
    repair = LigatureRepair()
    text = "the \x0crst and \x0cnal \x0cxed values; we \x0cnd \x0cX and \x0c alone; de\x0cnitional"
    out = restore_characters(text, evidence, repair)
    assert out == "the first and final fixed values; we find \x0cX and \x0c alone; definitional"
    assert repair.characters == {"\x0c→fi": 5}


def test_a_quotation_mark_before_a_word_is_not_part_of_it():
    """T1's opening quotation mark (0x10) has no Unicode map either: '\\x10\\x1cnish' is 'finish'."""
    evidence = _evidence(library={"finish", "first"})
    repair = LigatureRepair()
    assert (
        restore_characters("\x10\x1cnish\x11 and \x10\x1crst\x11", evidence, repair)
        == "\x10finish\x11 and \x10first\x11"
    )
    assert repair.words == {"nish→finish": 1, "rst→first": 1}


def test_ff_ends_a_word_and_fi_does_not():
    """A strong ff reading is restored at the end of an unattested word ('roundoff'); a strong fi
    reading is not ('else' before a math symbol at fi's code)."""
    evidence = _evidence(library={"effect", "different", "first", "final", "find"})
    text = "the e\x1bect is di\x1berent; roundo\x1b error; the \x1crst and \x1cnal; we \x1cnd else\x1c x"
    out = restore_characters(text, evidence, LigatureRepair())
    assert out == "the effect is different; roundoff error; the first and final; we find else\x1c x"


def test_a_word_pdfium_split_must_be_attested_whole():
    """Across pdfium's mark of a word it split, the joined word must be attested ('fixoh' is no
    word even if 'fix' is); across a hyphen of the text's own, each piece may be."""
    evidence = _evidence(library={"fix", "effect", "based"})
    assert restore_characters("a \x16x\u00ad\noh b", evidence, LigatureRepair()) == "a \x16x\u00ad\noh b"
    repair = LigatureRepair()
    assert restore_characters("an e\x1bect-\nbased model", evidence, repair) == "an effect-\nbased model"


def test_a_code_no_word_attests_is_left_alone():
    evidence = _evidence(library={"first"})
    text = "the \x14u and \x14y and \x14X"  # a math symbol before single letters: 'flu', 'fly', 'fiX'
    assert restore_characters(text, evidence, LigatureRepair()) == text


def test_restore_ligatures_changes_lines_in_place_and_keeps_their_number():
    lines = [
        Line(1, "The \x1crst coe\x1ecient and the", 0, 100, 0, 10, 10, "F"),
        Line(1, "e\x1bect of the \x1crst e\x1bect: \x1cts", 0, 100, 12, 22, 10, "F"),
        Line(2, "the inuences (no character left)", 0, 100, 0, 10, 10, "F"),
    ]
    repair = restore_ligatures([lines[:2], lines[2:]])
    assert [ln.text for ln in lines] == [
        "The first coefficient and the",
        "effect of the first effect: fits",
        "the influences (no character left)",  # fl: no character of the document was read as fl
    ]
    assert repair.words["rst→first"] == 2 and repair.words["inuences→influences"] == 1
    assert repair.characters == {"\x1b→ff": 2, "\x1c→fi": 3, "\x1e→ffi": 1}


def test_a_document_that_shows_no_loss_gets_no_guess():
    lines = [Line(1, "the rst inuences of las filas", 0, 100, 0, 10, 10, "F")]
    repair = restore_ligatures([lines])
    assert lines[0].text == "the rst inuences of las filas" and not repair.words


# -- the PDF ----------------------------------------------------------------------------------------

TEXT = (
    b"The \x1crst coe\x1ecient of the e\x1bect is the \x1crst \x1ctted value; its \x1ductuation "
    b"is signi\x1ccant and di\x1berent."
)


def test_a_pdf_whose_font_has_no_map_for_its_ligatures_is_restored(tmp_path):
    """A font with a ToUnicode map for its letters only: pdfium hands over the T1 codes of the
    ligatures (0x1B-0x1F) as the R vignettes' bitmap fonts do."""
    path = tmp_path / "ligatures.pdf"
    path.write_bytes(pdf_with_unicode_map(TEXT, {c: f"{c:04X}" for c in range(0x20, 0x7F)}))
    output = parse_source(path, detect_format(path))
    canonical, _ = assemble_canonical(output.raw_blocks)
    assert canonical == (
        "The first coefficient of the effect is the first fitted value; its fluctuation is significant and different."
    )
    quality = output.quality
    assert quality is not None
    assert quality.ligatures == {
        "coecient→coefficient": 1,
        "dierent→different": 1,
        "eect→effect": 1,
        "rst→first": 2,
        "signicant→significant": 1,
        "tted→fitted": 1,
        "uctuation→fluctuation": 1,
    }
    assert quality.repairs == {"\x1b→ff": 2, "\x1c→fi": 4, "\x1d→fl": 1, "\x1e→ffi": 1}
    assert quality.unknown_glyphs == 0
    assert quality.ligature_table()["coecient"] == "coefficient"

    before = parse_source(path, detect_format(path), repair=False)
    assert "The rst coecient" in assemble_canonical(before.raw_blocks)[0]  # what the text read before


def _vignette(pkg: str, name: str) -> Path:
    for pattern in VIGNETTES:
        path = Path(str(pattern).format(pkg=pkg, name=name))
        if path.exists():
            return path
    pytest.skip(f"{pkg}'s {name}.pdf not here (apt-get download r-cran-{pkg}, dpkg-deb -x)")


def _words(text: str) -> list[str]:
    return re.findall(r"(?<![A-Za-z])[A-Za-z]+(?![A-Za-z])", text)


@pytest.mark.parametrize(
    ("pkg", "name", "restored", "gone"),
    [
        ("survival", "survival", {"first": 50, "coefficient": 20, "effect": 20, "figure": 15}, ["rst", "coecient"]),
        ("strucchange", "strucchange-intro", {"fluctuation": 40}, ["uctuation", "rst"]),
    ],
)
def test_the_r_vignettes_read_their_ligatures(pkg, name, restored, gone):
    path = _vignette(pkg, name)
    output = parse_source(path, "pdf")
    words = _words(assemble_canonical(output.raw_blocks)[0])
    for word, least in restored.items():
        assert sum(1 for w in words if w.lower() == word) >= least, word
    for word in gone:
        assert word not in words
    assert output.quality is not None and sum(output.quality.ligatures.values()) >= 100


# -- the word list --------------------------------------------------------------------------------------


def test_the_word_list_holds_ligature_words_and_their_english_remainders():
    words = english_words()
    assert {"first", "coefficient", "effect", "fluctuation", "different", "significant"} <= words
    assert {"flow", "ow", "define"} <= words  # 'ow' is English: a word that exists both ways
    assert not {"rst", "coecient", "eect", "uctuation"} & words
    assert all(w.isascii() and w.isalpha() and w.islower() for w in words)


def test_ligature_free_forms():
    assert ligature_free_forms("coefficient") == {"coecient", "coeicient", "coefcient"}
    assert ligature_free_forms("first") == {"rst"}


def test_the_word_list_is_built_from_scowl_lists(tmp_path):
    scowl = tmp_path / "scowl"
    scowl.mkdir()
    (scowl / "english-words.10").write_text("first\nflow\now\ncat\n", encoding="latin-1")
    (scowl / "american-words.70").write_text("coefficient\nFinland\ncafé\n", encoding="latin-1")
    (scowl / "english-words.80").write_text("fiord\n", encoding="latin-1")  # above the size asked for
    (scowl / "english-upper.10").write_text("fig\n", encoding="latin-1")  # not a words list
    target = tmp_path / "words.txt.gz"
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "rebuild_ligature_words.py"),
            "--scowl",
            str(scowl),
            "--target",
            str(target),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = gzip.decompress(target.read_bytes()).decode("utf-8").splitlines()
    words = [line for line in lines if not line.startswith("#")]
    assert words == ["coefficient", "first", "flow", "ow"]
    assert any("SCOWL" in line for line in lines if line.startswith("#"))
    assert f"{len(words)} words" in done.stdout
