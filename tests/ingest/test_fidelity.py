"""Text fidelity of the PDF parser against the authors' sources (library/pdf_sources/): word
recall with per-document floors, no unquotable glyph left unflagged, no word left broken by a
hyphen before a blank line, and the two JSS papers' ligatures restored (found by BM25, quotable
with the ligature characters or with the plain letters)."""

from __future__ import annotations

import statistics
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import pytest

from corpus.ids import sha256_hex
from corpus.models import DocumentMetadata, ParsedDocument, SourceRecord
from corpus.text.canonical import assemble_canonical
from ingest.parsing import parse_source
from ingest.parsing.fidelity import DocumentFidelity, broken_words, library_pairs, measure_document, word_recall
from ingest.parsing.glyph_repair import infer_repairs
from ingest.parsing.glyphs import unknown_glyphs
from ingest.parsing.source_prose import prose_text
from ingest.sources.library import LIBRARY_ROOT

DEFAULT_FLOOR = 0.99
# Measured recall minus a margin; lower where the source extraction is noisy (user macros whose
# words only the typeset PDF holds: \sr, \cond, \outcolor, figure labels).
FLOORS = {
    "pav_asymptotic_distribution_markowitz_portfolio": 0.975,
    "mcdonald_option_pricing_functions_derivatives_markets": 0.985,
    "pav_notes_on_the_sharpe_ratio": 0.985,
    "weibel_breymann_luethi_ghyp": 0.985,
}
MUST_FLOOR, MUST_MEDIAN = 0.97, 0.995
JSS = ("kastner_stochvol_jss", "hosszejni_kastner_stochvol_factorstochvol_jss")
FAST = (
    *JSS,
    "peterson_portfolio_returns_vignette",
    "ardia_boudt_catania_gas_package",
    "bennett_portfolio_optimization_with_roi",
)
PAIRS = {pdf.stem: (pdf, src) for pdf, src in library_pairs(LIBRARY_ROOT)}


@cache
def _measured(stem: str, repair: bool = True) -> DocumentFidelity:
    return measure_document(*PAIRS[stem], repair=repair)


def _check_document(m: DocumentFidelity) -> None:
    if m.garbled_text:  # excepted by its flag: the text is announced as unusable
        assert m.attested_share < 0.5 or m.recall < MUST_FLOOR, m.stem
        return
    assert m.recall >= FLOORS.get(m.stem, DEFAULT_FLOOR), (m.stem, m.recall, m.missing)
    assert m.unknown_glyphs == 0, (m.stem, m.unknown_glyphs)
    assert m.broken == [], (m.stem, m.broken)


def test_the_library_ships_29_sources():
    assert len(PAIRS) == 29 and set(FAST) <= set(PAIRS)


@pytest.mark.parametrize("stem", FAST)
def test_fast_documents_meet_their_floors(stem):
    _check_document(_measured(stem))


@pytest.mark.slow
def test_every_pdf_with_a_source_meets_its_floor():
    measured = [_measured(stem) for stem in PAIRS]
    for m in measured:
        _check_document(m)
    assert statistics.median(m.recall for m in measured) >= MUST_MEDIAN
    flagged = [m.stem for m in measured if m.recall < MUST_FLOOR]
    assert len(flagged) <= 1 and all(_measured(s).garbled_text for s in flagged), flagged
    before = [_measured(stem, repair=False) for stem in PAIRS]
    assert sum(len(m.broken) for m in before) > 50  # the measurement sees what the join repairs


def test_the_repairs_raise_recall_in_the_jss_papers():
    for stem in JSS:
        before, after = _measured(stem, repair=False), _measured(stem)
        assert before.recall < 0.993 and after.recall > before.recall + 0.005, (stem, before.recall, after.recall)
        assert after.repairs["Ą→fi"] > 50 and after.repairs["Ş→“"] == after.repairs["Ť→”"] > 30


def test_source_prose_drops_code_math_and_commands():
    text = prose_text(
        "\\documentclass{jss}\\begin{document}\nWe fit a \\pkg{stochvol} model $x^2$ "
        "(see \\cite{kastner}).\n<<fit>>=\nsvsample(y)\n@\n\\begin{equation}a=b\\end{equation}"
        "% a comment\n\\end{document}",
        markdown=False,
    )
    assert text.split() == ["We", "fit", "a", "stochvol", "model", "(see", ")."]
    md = prose_text(
        "---\ntitle: x\n---\nReturns `r 1+1` are [fat](http://x) [@cite].\n```{r}\nplot(x)\n```\n", markdown=True
    )
    assert md.split() == ["x", "Returns", "are", "fat", "."]  # the title is typeset


def test_source_prose_keeps_only_what_is_typeset():
    """What the typeset PDF cannot hold is no prose word: lengths, float placements, counters,
    colours, listing settings, a command that only begins like a reference command; an initial set
    apart by a command, a TeX accent and letters glued to math are read as typeset."""
    text = prose_text(
        "\\begin{document}\\begin{figure}[htbp]\\setkeys{Gin}{width=0.8\\textwidth}\\end{figure}"
        "\\rule{0mm}{3em}\\pagestyle{headings}\\value{IsInCodeChunk} \\definecolor{darkblue}{rgb}{0,0,1}"
        "\\lstset{basicstyle=\\small} \\inputencoding{latin9}See \\references{here} the \\textbf{S}tructural "
        'change at Universit\\"at Fran\\c{c}ois, the $i$th row.\\end{document}',
        markdown=False,
    )
    typeset = ["See", "here", "the", "Structural", "change", "at", "Universität", "François,", "the", "row."]
    assert text.split() == typeset
    md = prose_text(
        '---\r\noutput: pdf_document\r\n---\r\n<!-- c -->\r\n\n---\ntitle: "T"\nauthor:\n  - name: Ann\n'
        "    affiliation: Uni\nreferences:\n- id: k\n  family: Smith\n---\nA **T**ool.\n".replace("\r\n", "\n"),
        markdown=True,
    )
    assert md.split() == ['"T"', "Ann", "Uni", "A", "Tool."]


def test_recall_reads_ligature_characters_as_letters_and_sees_broken_words():
    assert word_recall(["financial", "returns"], "\ufb01nancial returns") == 1.0
    assert word_recall(["volatility"], "volatil-\n\nity") == 0.0
    assert broken_words("the volatil-\n\nity of", {"volatility"}) == ["volatil-ity"]
    assert unknown_glyphs("a\uf8ecb\ufffd (cid:12)") == 3


def test_repairs_need_evidence():
    text = "the Ąrst Ąnancial speciĄcation is Ąxed and ĄtŁ " * 2 + "Łukasz Łódź Wałęsa"
    mapping = infer_repairs(text)
    assert mapping == {"Ą": "fi"}  # Ł makes no attested word
    assert infer_repairs("Ąrst") == {}  # one occurrence proves nothing
    quotes = infer_repairs("he said Şyes,Ť then ŞnoŤ and Şmaybe.Ť Ű 1Ű2 a Ű b Ű c")
    assert quotes == {"Ş": "\u201c", "Ť": "\u201d", "Ű": "\u2013"}


def test_a_page_broken_word_is_rejoined_across_floats():
    from corpus.models import BlockKind, RawBlock
    from ingest.parsing.pdf_text import join_broken_blocks

    def para(text, page):
        return RawBlock(
            kind=BlockKind.paragraph,
            text=text,
            page_start=page,
            page_end=page,
            regions=[(page, 10.0, 20.0 * page, 300.0, 40.0 * page)],
        )

    blocks = [
        para("the volatil-", 1),
        RawBlock(kind=BlockKind.footnote, text="1 A note.", page_start=1, page_end=1),
        para("ity of returns", 2),
        para("a zorb-", 2),
        para("Qux rest", 2),
    ]
    out, joins = join_broken_blocks(blocks, {"volatility"}, set())
    assert joins == 1 and [b.text for b in out] == ["the volatility of returns", "1 A note.", "a zorb-", "Qux rest"]
    assert out[0].page_start == 1 and out[0].page_end == 2
    assert out[0].regions == [*blocks[0].regions, *blocks[2].regions]
    kept, _ = join_broken_blocks([para("a non-", 1), para("zero pattern", 2)], set(), {"non-zero"})
    assert kept[0].text == "a non-zero pattern"


def _state_with(tmp_path: Path, stem: str, repair: bool = True):
    """A one-document corpus state of the parsed PDF (the verifier's reader reads nothing else)."""
    from corpus.reading.reader import CorpusReader
    from corpus.state.layout import StateLayout, atomic_write_json, atomic_write_jsonl, atomic_write_text
    from ingest.passages.parse import expected_parser_version

    output = parse_source(PAIRS[stem][0], "pdf", repair=repair)
    canonical, blocks = assemble_canonical(output.raw_blocks)
    layout, document_id = StateLayout(tmp_path).ensure(), "doc-" + sha256_hex(stem)[:16]
    atomic_write_json(
        layout.registry_entry(document_id),
        SourceRecord(
            document_id=document_id,
            format="pdf",
            source_sha256=sha256_hex(stem),
            bytes=1,
            original_name=f"{stem}.pdf",
            registered_at=datetime.now(UTC).isoformat(),
        ).model_dump(mode="json"),
    )
    atomic_write_text(layout.canonical_text(document_id), canonical)
    atomic_write_json(
        layout.parsed_blocks(document_id),
        ParsedDocument(
            document_id=document_id,
            parser=output.parser,
            parser_version=expected_parser_version("pdf"),
            canonical_sha256=sha256_hex(canonical),
            canonical_chars=len(canonical),
            blocks=blocks,
            text_quality=output.quality,
        ).model_dump(mode="json"),
    )
    atomic_write_json(layout.metadata(document_id), DocumentMetadata(document_id=document_id).model_dump(mode="json"))
    atomic_write_jsonl(layout.passages(document_id), [])
    return CorpusReader.open(layout), document_id, canonical


# Sentences of the papers as printed; the ligature characters are what a PDF viewer copies
# from a font with a correct map (the bundled files' own map gives 'Ą', which nothing can read).
QUOTES = {
    "kastner_stochvol_jss": [
        "Returns \u2013 in particular \ufb01nancial returns \u2013 are commonly analyzed",
        "a variant of the \u201cancillarity-su\ufb03ciency interweaving strategy\u201d (ASIS)",
    ],
    "hosszejni_kastner_stochvol_factorstochvol_jss": [
        "Time dependent variance is an indispensable ingredient of \ufb01nancial and economic time series modeling",
        "the SV model with Student\u2019s t errors (SVt)",
    ],
}
_BROKEN_MAP = str.maketrans(
    {"\ufb01": "Ą", "\ufb02": "Ć", "\ufb03": "ffi", "\u2013": "Ű", "\u201c": "Ş", "\u201d": "Ť", "\u2019": "Š"}
)  # what these two files' own map copies
_PLAIN = str.maketrans(
    {"\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\u2013": "-", "\u201c": '"', "\u201d": '"', "\u2019": "'"}
)


@pytest.mark.parametrize("stem", JSS)
def test_a_quote_with_ligatures_or_plain_letters_verifies(stem, tmp_path):
    from serving.citation.verify import verify_quote

    reader, document_id, canonical = _state_with(tmp_path, stem)
    for quote in QUOTES[stem]:
        for text in (quote, quote.translate(_PLAIN)):
            result = verify_quote(reader, document_id, text)
            assert result.status in ("verified", "verified_normalised"), (text, result)
            start, end = result.offsets[0]
            assert "Ą" not in canonical[start:end] and end - start >= len(text) - 4
        # copied through the file's broken map: the verifier reads it through the document's own
        # repairs (TextQuality.quote_table), and says it is not the raw text
        broken = quote.translate(_BROKEN_MAP)
        assert verify_quote(reader, document_id, broken).status == "verified_normalised"


def test_without_the_repair_the_copied_sentence_does_not_verify(tmp_path):
    from serving.citation.verify import verify_quote

    reader, document_id, _ = _state_with(tmp_path, JSS[0], repair=False)
    assert verify_quote(reader, document_id, QUOTES[JSS[0]][0]).status == "not_found"


def test_bm25_finds_the_repaired_words_in_the_jss_papers():
    """'financial' and 'specification' reach both papers through the served BM25 analyser."""
    from corpus.config import ServedConfig
    from corpus.indexes.bm25_store import BM25Index
    from ingest.indexes.bm25 import bm25_rows
    from ingest.passages.chunker import chunk_document

    config, hits = ServedConfig(), {}
    for repair in (False, True):
        rows = []
        for stem in JSS:
            output = parse_source(PAIRS[stem][0], "pdf", repair=repair)
            canonical, blocks = assemble_canonical(output.raw_blocks)
            rows += bm25_rows((None, p) for p in chunk_document(stem, canonical, blocks))
        index = BM25Index.in_memory(rows, config.bm25_k1, config.bm25_b, config.analyzer, "test")
        for word in ("financial", "specification"):
            found = {chunk_id for chunk_id, score in index.search(word, 50) if score > 0}
            for stem in JSS:
                hits[word, stem, repair] = sum(1 for c, d, _ in rows if c in found and d == stem)
    for word in ("financial", "specification"):
        for stem in JSS:  # unrepaired, only a reference list in a sound font may hold the word
            assert hits[word, stem, True] >= 2 and hits[word, stem, True] > 2 * hits[word, stem, False], hits


def test_list_documents_and_corpus_status_carry_the_text_quality(ingested_home):
    """Through the Dagster-ingested slice (a garbled PDF among sound ones): the record reaches the
    tools' structured output and their text, and only the garbled PDF is flagged."""
    from corpus.config import ServedConfig
    from corpus.state.layout import StateLayout
    from serving.mcp.server import ServingContext, call_tool
    from serving.mcp.toolset import all_tools

    specs, context = {s.name: s for s in all_tools()}, ServingContext(StateLayout(ingested_home), ServedConfig())
    listed = call_tool(specs["list_documents"], context, {"limit": 200})
    documents = listed.structured_content["documents"]
    flagged = [d for d in documents if d["garbled_text"]]
    assert [d["title"] for d in flagged] and len(flagged) == 1
    assert flagged[0]["text_quality"]["low_quality"] and flagged[0]["text_quality"]["attested_share"] < 0.1
    assert all(d["text_quality"]["attested_share"] > 0.8 for d in documents if not d["garbled_text"])
    assert all(d["text_quality"]["unknown_glyphs"] >= 0 and d["text_quality"]["words"] > 0 for d in documents)
    assert f"1 flagged garbled ({flagged[0]['document_id']})" in listed.content[0].text
    status = call_tool(specs["corpus_status"], context, {})
    assert status.structured_content["text"]["flagged_garbled"] == [flagged[0]["document_id"]]
    assert "1 document(s) flagged garbled" in status.content[0].text


def test_the_scale_measures_see_mojibake_breaks_and_unjudged_sources(tmp_path):
    from ingest.parsing.fidelity import hyphen_breaks, mojibake, unjudged

    assert mojibake("caf\u00c3\u00a9, it\u00e2\u20ac\u2122s ^a\u0102\u0178dna; plain \u00e9, \u00c8\u02dc(y)") == [
        "\u00c3\u00a9",
        "\u00e2\u20ac\u2122",
        "^a\u0102\u0178",
    ]
    assert hyphen_breaks("a volatil-\n\nity and a model-\n\nBased x-\ny") == ["volatil-ity"]
    stub = tmp_path / "stub.Rnw"
    stub.write_text("\\begin{document}\n\\includepdf[pages=-]{real.pdf}\n\\end{document}\n", encoding="utf-8")
    assert unjudged(stub) is not None and "includepdf" in unjudged(stub)
    short = tmp_path / "short.Rnw"
    short.write_text("\\begin{document}Three words here.\\end{document}", encoding="utf-8")
    assert unjudged(short) == "the source holds 3 prose words (< 50)"
    prose = tmp_path / "prose.Rmd"
    prose.write_text("Word " * 60, encoding="utf-8")
    assert unjudged(prose) is None
