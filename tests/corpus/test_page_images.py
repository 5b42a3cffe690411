"""Rendered page regions (corpus.reading.page_images): a cropped, bounded PNG, cached by document and
region; and the lines of a paragraph that hold inline math, found from the page's characters."""

from __future__ import annotations

import io

from PIL import Image

from corpus.models import BlockKind
from corpus.reading.page_images import (
    CROP_MARGIN,
    MAX_IMAGE_BYTES,
    cache_path,
    crop_boxes,
    has_inline_math,
    is_math_char,
    math_lines,
    page_image,
    page_lines,
    render_png,
)
from corpus.state.layout import StateLayout
from ingest.parsing.pdf import parse_pdf
from ingest.sources.library import LIBRARY_ROOT

PAPER = LIBRARY_ROOT / "pdf" / "cornilly_peterson_estimation_higher_order_comoments.pdf"
NOTES = LIBRARY_ROOT / "pdf" / "gochez_notes_on_blcop.pdf"  # "Ω is set to κP T ΣP rather than diag(σ21 , …"
DOC = "doc-00000000000000aa"


def test_crop_boxes_unite_regions_per_page_with_a_margin():
    boxes = crop_boxes([(2, 100, 50, 200, 60), (2, 90, 70, 150, 80), (1, 10, 10, 20, 20)])
    m = CROP_MARGIN
    assert boxes == [(1, 10 - m, 10 - m, 20 + m, 20 + m), (2, 90 - m, 50 - m, 200 + m, 80 + m)]


def test_a_formula_region_renders_cropped_bounded_and_cached(tmp_path):
    layout = StateLayout(tmp_path)
    formula = next(b for b in parse_pdf(PAPER).blocks if b.kind is BlockKind.formula)
    region = crop_boxes(formula.regions)[0]
    first = page_image(layout, DOC, PAPER, region)
    assert first is not None and not first.cached and len(first.png) <= MAX_IMAGE_BYTES
    image = Image.open(io.BytesIO(first.png))
    image.verify()
    assert image.format == "PNG" and image.size == (first.width, first.height)
    whole = render_png(PAPER, (region[0], 0, 0, 10_000, 10_000), budget=10**8)  # the full page
    full = Image.open(io.BytesIO(whole[0])).size
    assert first.width < full[0] and first.height < full[1] / 4  # a display, not the page
    assert cache_path(layout, DOC, region, MAX_IMAGE_BYTES).read_bytes() == first.png
    second = page_image(layout, DOC, PAPER, region)
    assert second.cached and second.png == first.png and second.render_ms < first.render_ms


def test_a_tight_budget_lowers_the_scale_or_gives_up(tmp_path):
    layout = StateLayout(tmp_path)
    region = (4, 50, 50, 560, 700)
    roomy = page_image(layout, DOC, PAPER, region)
    tight = page_image(layout, DOC, PAPER, region, budget=len(roomy.png) - 1)
    assert tight is None or (tight.scale < roomy.scale and len(tight.png) < len(roomy.png))
    assert page_image(layout, DOC, PAPER, region, budget=100) is None
    assert page_image(layout, DOC, PAPER, (999, 0, 0, 10, 10)) is None  # no such page


def test_math_characters_are_what_only_mathematics_writes():
    for ch in "κΣΩσ⊤−≤∑∈×±ℝ𝑥²₁′\ue01f⟨⨁":
        assert is_math_char(ch), ch
    for ch in "aZ0=+<-/|^_é´¨–—•…“™°%§":
        assert not is_math_char(ch), ch
    assert has_inline_math("then Ω is set to κP T ΣP rather than diag(σ21 , σ22 , ..., σn2)")
    assert not has_inline_math("a kappa parameter which may be used to replace the matrix (x = 2, y < 3)")


def _paragraph(prefix: str):
    return next(b for b in parse_pdf(NOTES).blocks if b.kind is BlockKind.paragraph and b.text.startswith(prefix))


def test_math_lines_are_the_lines_of_a_paragraph_that_hold_its_inline_math(tmp_path):
    block = _paragraph("Both BLPosterior and posteriorEst have a kappa parameter")
    assert has_inline_math(block.text) and len(block.regions) == 1
    region = block.regions[0]
    lines = math_lines(NOTES, block.regions, block.text)
    drawn = {tuple(round(v, 1) for v in line.box): line for line in page_lines(NOTES, region[0])}
    texts = [drawn[box[1:]].text for box in lines]
    # its second and third lines, of four: κP^T ΣP, then diag(σ_1^2, …, σ_n^2) with the scripts
    # that pdfium emits as lines of their own rejoined to the line they are set on
    assert len(texts) == 2 and "κP" in texts[0] and "ΣP" in texts[0] and texts[1].startswith("ratherthandiag(σ")
    assert all(drawn[box[1:]].math for box in lines)
    for page, x0, top, x1, bottom in lines:  # inside the paragraph's region, one line high each
        assert page == region[0] and region[1] <= x0 < x1 <= region[3] and region[2] <= top < bottom <= region[4]
        assert bottom - top < 2 * drawn[(x0, top, x1, bottom)].size
    # the rendered crop: two lines across the text width, not the paragraph or the page
    crop = crop_boxes(lines)[0]
    image = page_image(StateLayout(tmp_path), DOC, NOTES, crop)
    assert image is not None and len(image.png) <= MAX_IMAGE_BYTES
    assert crop[4] - crop[2] < region[4] - region[2] and image.height < image.width / 5
    (tmp_path / "inline.png").write_bytes(image.png)


def test_math_lines_keep_to_the_passage_part_of_a_paragraph():
    """A paragraph cut between two passages: each part's lines, by their letters and digits."""
    block = _paragraph("Both BLPosterior and posteriorEst have a kappa parameter")
    cut = block.text.index("rather than diag")
    head, tail = block.text[:cut], block.text[cut:]
    head_lines, tail_lines = math_lines(NOTES, block.regions, head), math_lines(NOTES, block.regions, tail)
    assert len(head_lines) == len(tail_lines) == 1 and head_lines[0][2] < tail_lines[0][2]
    assert head_lines + tail_lines == math_lines(NOTES, block.regions, block.text)


def test_a_paragraph_without_math_has_no_math_lines():
    block = _paragraph("Now suppose that we wish to add another view")
    assert not has_inline_math(block.text)
    assert math_lines(NOTES, block.regions, block.text) == []
    # another block's text finds no line of this one's region
    other = _paragraph("Both BLPosterior and posteriorEst have a kappa parameter")
    assert math_lines(NOTES, block.regions, other.text) == []
    assert page_lines(NOTES, 999) == []
