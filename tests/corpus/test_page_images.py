"""Rendered page regions (corpus.reading.page_images): a cropped, bounded PNG, cached by document and region."""

from __future__ import annotations

import io

from PIL import Image

from corpus.models import BlockKind
from corpus.reading.page_images import CROP_MARGIN, MAX_IMAGE_BYTES, cache_path, crop_boxes, page_image, render_png
from corpus.state.layout import StateLayout
from ingest.library import LIBRARY_ROOT
from ingest.parsing.pdf import parse_pdf

PAPER = LIBRARY_ROOT / "pdf" / "cornilly_peterson_estimation_higher_order_comoments.pdf"
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
