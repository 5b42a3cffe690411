"""Whether a display formula's text layer can be read as written, and where the block is drawn.

A PDF text layer is one-dimensional: a display formula set in two dimensions (scripts above and
below the baseline, fractions, limits under big operators) comes out flattened, and pdfium emits
its pieces in content-stream order, not in the order a reader reads them. Such a block keeps its
text (offsets never change) but is marked `formula_text_unreliable`, and the agent is pointed to
the rendered region instead. The rule is deterministic and reads only the lines' geometry:

* scripts: at least SCRIPT_MIN_CHARS characters, and SCRIPT_SHARE of the block's, are set below
  SCRIPT_RATIO of the block's main font size (sub/superscripts and limits put on the baseline);
* stacking: two lines of the block on one page overlap horizontally and their baselines are closer
  than STACK_RATIO font sizes (a numerator over its denominator, a limit under an operator), or a
  line starts above the one before it (the glyph order jumps back up the page). An equation
  number, set beside the display, takes no part in this test.
"""

from __future__ import annotations

from collections import Counter

from corpus.models import Region
from ingest.parsing.pdf_lines import Line
from ingest.parsing.pdf_roles import EQ_NUMBER

SCRIPT_RATIO = 0.8
SCRIPT_SHARE = 0.05
SCRIPT_MIN_CHARS = 2
STACK_RATIO = 1.3
MARGIN = 0.5  # points added around a region so that no glyph edge is clipped


def regions_of(lines: list[Line]) -> list[Region]:
    """One (page, x0, top, x1, bottom) box per page the lines touch, in page order."""
    boxes: dict[int, list[float]] = {}
    for ln in lines:
        box = boxes.setdefault(ln.page, [ln.x0, ln.top, ln.x1, ln.bottom])
        box[0], box[1] = min(box[0], ln.x0), min(box[1], ln.top)
        box[2], box[3] = max(box[2], ln.x1), max(box[3], ln.bottom)
    return [
        (
            page,
            round(max(0.0, b[0] - MARGIN), 1),
            round(max(0.0, b[1] - MARGIN), 1),
            round(b[2] + MARGIN, 1),
            round(b[3] + MARGIN, 1),
        )
        for page, b in sorted(boxes.items())
    ]


def _scripts_flattened(lines: list[Line]) -> bool:
    sizes: Counter = Counter()
    for ln in lines:
        sizes.update(ln.sizes)
    if not sizes:
        return False
    main = sizes.most_common(1)[0][0]
    small = sum(n for size, n in sizes.items() if size < SCRIPT_RATIO * main)
    return small >= SCRIPT_MIN_CHARS and small >= SCRIPT_SHARE * sum(sizes.values())


def _stacked(lines: list[Line]) -> bool:
    lines = [ln for ln in lines if not EQ_NUMBER.match(ln.text.strip())]  # set beside, not inside
    for prev, cur in zip(lines, lines[1:]):
        if cur.page == prev.page and cur.top < prev.top - 0.3 * prev.size:
            return True
    for i, a in enumerate(lines):
        for b in lines[i + 1 :]:
            if a.page != b.page:
                continue
            overlap = min(a.x1, b.x1) - max(a.x0, b.x0)
            narrower = min(a.x1 - a.x0, b.x1 - b.x0)
            if (
                narrower > 0
                and overlap > 0.5 * narrower
                and abs(b.bottom - a.bottom) < STACK_RATIO * max(a.size, b.size)
            ):
                return True
    return False


def formula_text_unreliable(lines: list[Line]) -> bool:
    """The rule of the module docstring, for the lines of one display formula block."""
    return _scripts_flattened(lines) or _stacked(lines)
