"""Rendered page regions: a PNG of the part of a PDF page where a formula, table or figure is
drawn, for the reader who cannot trust the text layer. Shared by the server (get_passage) and by
ingestion (a configured formula recogniser reads the same crops).

A crop is the union of the regions asked for on one page plus CROP_MARGIN points, rendered in
greyscale at the first scale of RENDER_SCALES whose PNG fits the byte budget and whose sides stay
within MAX_SIDE_PX. Each crop is cached under the state's page-image folder, keyed by the source's
document id (a hash of its bytes), the region and RENDER_VERSION, so a second call reads a file.
pypdfium2 and Pillow are imported on first use; pdfium is not thread-safe, so renders take a lock.
"""

from __future__ import annotations

import io
import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from corpus.models import Region
from corpus.state.layout import StateLayout, atomic_write_bytes

log = logging.getLogger(__name__)

RENDER_VERSION = "r1"  # enters the cache key: a change of the rendering below renders anew
MAX_IMAGE_BYTES = 200_000  # one answer's images together stay under this
RENDER_SCALES = (2.0, 1.5, 1.0, 0.75)  # 144 dpi first: subscripts stay legible
MAX_SIDE_PX = 1600
CROP_MARGIN = 6.0  # points around the union, so no glyph edge is cut
_LOCK = threading.Lock()


@dataclass(frozen=True)
class PageImage:
    page: int
    box: tuple[float, float, float, float]  # x0, top, x1, bottom in PDF points (top-down)
    png: bytes
    width: int
    height: int
    scale: float
    cached: bool
    render_ms: float


def crop_boxes(regions: list[Region]) -> list[Region]:
    """The union of `regions` per page, widened by CROP_MARGIN, in page order."""
    pages: dict[int, list[float]] = {}
    for page, x0, top, x1, bottom in regions:
        box = pages.setdefault(page, [x0, top, x1, bottom])
        box[:] = min(box[0], x0), min(box[1], top), max(box[2], x1), max(box[3], bottom)
    return [
        (
            page,
            round(b[0] - CROP_MARGIN, 1),
            round(b[1] - CROP_MARGIN, 1),
            round(b[2] + CROP_MARGIN, 1),
            round(b[3] + CROP_MARGIN, 1),
        )
        for page, b in sorted(pages.items())
    ]


def cache_path(layout: StateLayout, document_id: str, region: Region, budget: int) -> Path:
    page, x0, top, x1, bottom = region
    name = f"p{page}_{x0:g}_{top:g}_{x1:g}_{bottom:g}_b{budget}.png"
    return layout.page_images / RENDER_VERSION / document_id / name


def _png_size(png: bytes) -> tuple[int, int]:
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def render_png(pdf: Path, region: Region, budget: int = MAX_IMAGE_BYTES) -> tuple[bytes, float] | None:
    """(png, scale) at the first scale step that fits `budget`, or None; the box is clamped to
    the page."""
    import pypdfium2 as pdfium

    page_no, x0, top, x1, bottom = region
    with _LOCK:
        doc = pdfium.PdfDocument(str(pdf))
        try:
            if not 1 <= page_no <= len(doc):
                return None
            page = doc[page_no - 1]
            width, height = page.get_size()
            x0, top, x1, bottom = max(0.0, x0), max(0.0, top), min(width, x1), min(height, bottom)
            if x1 - x0 < 1 or bottom - top < 1:
                return None
            for scale in RENDER_SCALES:
                if max(x1 - x0, bottom - top) * scale > MAX_SIDE_PX:
                    continue
                bitmap = page.render(scale=scale, crop=(x0, height - bottom, width - x1, top), grayscale=True)
                buffer = io.BytesIO()
                bitmap.to_pil().save(buffer, format="PNG", optimize=True)
                if len(buffer.getvalue()) <= budget:
                    return buffer.getvalue(), scale
            return None
        finally:
            doc.close()


def page_image(
    layout: StateLayout, document_id: str, pdf: Path, region: Region, budget: int = MAX_IMAGE_BYTES
) -> PageImage | None:
    """The crop of `region` (already widened: see crop_boxes) as a PNG within `budget` bytes, from
    the cache when it was rendered before; None when it cannot be rendered within the bounds."""
    start = time.perf_counter()
    path = cache_path(layout, document_id, region, budget)
    box = (region[1], region[2], region[3], region[4])
    cached = path.exists()
    if cached:
        png = path.read_bytes()
    else:
        rendered = render_png(pdf, region, budget)
        if rendered is None:
            return None
        png = rendered[0]
        try:  # a read-only state still answers; it only renders again next time
            atomic_write_bytes(path, png)
        except OSError as exc:
            log.warning("page image not cached: %s", exc)
    width, height = _png_size(png)
    # to the nearest quarter; a crop clamped at the page edge reads a bit high
    scale = round(4 * width / max(1.0, box[2] - box[0])) / 4
    return PageImage(region[0], box, png, width, height, scale, cached, (time.perf_counter() - start) * 1000)
