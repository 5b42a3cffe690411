"""The slice of the bundled library that the fast tests ingest (one home for it)."""

from __future__ import annotations

from pathlib import Path

from ingest.sources.library import LIBRARY_ROOT  # noqa: E402

# A slice with both formats, a two-column paper, a garbled PDF and several publication years.
SLICE = [
    "pdf/kane_liu_nguyen_analyzing_limit_order_book.pdf",
    "pdf/gochez_notes_on_blcop.pdf",
    "pdf/peterson_portfolio_returns_vignette.pdf",
    "markdown/quantopian_lecture40_var_and_cvar.md",
    "markdown/quantopian_lecture44_arch_garch_and_gmm.md",
    "markdown/quantopian_lecture23_p_hacking_and_multiple_comparisons_bias.md",
    "markdown/quantopian_lecture28_market_impact_models.md",
]
EXTRA_DOCUMENT = "pdf/schumann_repairing_solutions.pdf"


def slice_files(keys: list[str] = SLICE) -> list[tuple[Path, str]]:
    return [(LIBRARY_ROOT / key, key) for key in keys]
