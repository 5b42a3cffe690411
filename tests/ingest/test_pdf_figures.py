"""Figure captions keep the region of the figure they caption (ingest.parsing.pdf_figures)."""

from __future__ import annotations

from corpus.models import BlockKind
from ingest.parsing import parse_source
from ingest.parsing.pdf_figures import MIN_FIGURE_HEIGHT, _figure_box
from ingest.sources.library import LIBRARY_ROOT

CHARTS = LIBRARY_ROOT / "pdf" / "carl_peterson_performanceanalytics_charts_tables.pdf"


def test_the_graphics_above_a_caption_are_its_figure_and_rules_or_text_are_not():
    caption = (1, 200, 400, 400, 410)
    others = [(1, 72, 100, 540, 150)]  # a paragraph above the figure
    plot = [(150, 160, 450, 390), (160, 170, 300, 380)]
    assert _figure_box(caption, others, plot) == (1, 150, 160, 450, 390)
    assert _figure_box(caption, others, [(150, 380, 450, 390)]) is None  # too flat to be a picture
    assert _figure_box(caption, others + [(1, 72, 155, 540, 395)], plot) is None  # text between: not its figure
    assert MIN_FIGURE_HEIGHT > 10


def test_a_plot_is_found_and_a_console_listing_called_figure_is_not():
    blocks = parse_source(CHARTS, "pdf").raw_blocks
    captions = {b.text.split(":")[0]: b for b in blocks if b.kind is BlockKind.caption}
    plot, listing = captions["Figure 3"], captions["Figure 1"]
    assert plot.figure and len(plot.regions) == 2
    page, x0, top, x1, bottom = plot.regions[-1]
    assert page == plot.page_start and bottom - top > 100 and x1 - x0 > 100
    assert not listing.figure and len(listing.regions) == 1  # typeset text, already in the canonical text
