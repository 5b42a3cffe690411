"""Compare PDF parsers on the bundled library and print one table (choice of the default parser).

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/parsers.py [--slow-subset] [--json] [--out OUT]

Candidates: `pdfium` (the default: pdfium lines + layout rules + pdfplumber on table regions),
`pdfium-notables` (the same without pdfplumber), and, on a subset because they are slow,
`pdfplumber` (plain text per page + find_tables) and `mineru` (docvortex flash tier, if installed).
Measured: pages per CPU second (the machine is shared, so wall time is shown but not used; worker
processes are counted once they have exited), headings, tables, display formulas, code blocks,
empty blocks, page ranges in bounds, reading order on the three two-column papers (abstract
before introduction; a sentence that runs across the column break kept whole) and garbled-text
flags.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import harness  # noqa: E402

from corpus.models import BlockKind, RawBlock  # noqa: E402
from ingest.parsing.garbled import garbled_score, is_garbled  # noqa: E402

LIBRARY = Path(__file__).resolve().parents[1] / "library" / "pdf"
# per two-column paper: what must come first, what after it, and a sentence that runs across
# page 1's column break (it must come out whole)
TWO_COLUMN = {
    "kane_liu_nguyen_analyzing_limit_order_book.pdf": (
        "Analyzing an Electronic Limit Order Book",
        "Introduction",
        "before later orders. For example, suppose that",
    ),
    "ardia_hoogerheide_bayesian_garch11_student_t.pdf": (
        "Abstract",
        "Introduction",
        "rgarch (Ghalanos, 2010) and tseries (Trapletti and Hornik, 2009).",
    ),
    "ardia_boudt_carl_mullen_peterson_deoptim_nonconvex_portfolio.pdf": (
        "Abstract",
        "Introduction",
        "In order to create the initial generation",
    ),
}
SLOW_SUBSET = [*TWO_COLUMN, "palomar_risk_parity_portfolios_slides_rfinance2019.pdf"]


def _pdfium(path: Path, tables: bool = True) -> tuple[list[RawBlock], int]:
    from ingest.parsing.pdf import parse_pdf

    result = parse_pdf(path, tables=tables)
    return result.blocks, result.pages


def _pdfplumber(path: Path) -> tuple[list[RawBlock], int]:
    import pdfplumber

    from ingest.parsing.pdf_tables import to_pipe_table

    blocks: list[RawBlock] = []
    with pdfplumber.open(str(path)) as pdf:
        for n, page in enumerate(pdf.pages, 1):
            text = page.extract_text() or ""
            if text.strip():
                blocks.append(RawBlock(kind=BlockKind.paragraph, text=text, page_start=n, page_end=n))
            for table in page.extract_tables():
                if md := to_pipe_table(table):
                    blocks.append(RawBlock(kind=BlockKind.table, text=md, page_start=n, page_end=n))
        return blocks, len(pdf.pages)


def _mineru(path: Path) -> tuple[list[RawBlock], int]:
    from ingest.parsing.mineru import parse_pdf_mineru

    return parse_pdf_mineru(path)


PARSERS = {
    "pdfium": _pdfium,
    "pdfium-notables": lambda p: _pdfium(p, tables=False),
    "pdfplumber": _pdfplumber,
    "mineru": _mineru,
}


def _cpu() -> float:
    """CPU seconds of this process and its finished children (docvortex renders in workers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _flat(text: str) -> str:
    return " ".join(text.replace("\u00ad", "").split())


def _reading_order(name: str, blocks: list[RawBlock]) -> bool:
    text = _flat("\n\n".join(b.text for b in blocks))
    first, second, across = TWO_COLUMN[name]
    return 0 <= text.find(first) < text.find(second) and across in text


def measure(parser: str, files: list[Path]) -> dict:
    kinds: Counter = Counter()
    pages = empty = bad_pages = 0
    order: list[bool] = []
    garbled: list[str] = []
    started, cpu = time.perf_counter(), _cpu()
    for path in files:
        blocks, n = PARSERS[parser](path)
        pages += n
        kinds.update(b.kind.value for b in blocks)
        empty += sum(not b.text.strip() for b in blocks)
        bad_pages += sum(not (1 <= (b.page_start or 0) <= (b.page_end or 0) <= n) for b in blocks)
        if path.name in TWO_COLUMN:
            order.append(_reading_order(path.name, blocks))
        if is_garbled(garbled_score("\n".join(b.text for b in blocks))):
            garbled.append(path.stem.split("_")[0])
    seconds, cpu = time.perf_counter() - started, _cpu() - cpu
    return {
        "parser": parser,
        "docs": len(files),
        "pages": pages,
        "wall_s": round(seconds, 1),
        "cpu_s": round(cpu, 1),
        "pages_per_cpu_s": round(pages / cpu, 1),
        "headings": kinds["heading"],
        "tables": kinds["table"],
        "formulas": kinds["formula"],
        "code": kinds["code"],
        "lists": kinds["list"],
        "paragraphs": kinds["paragraph"],
        "empty": empty,
        "bad_pages": bad_pages,
        "two_col_ok": f"{sum(order)}/{len(order)}",
        "garbled": ",".join(garbled) or "-",
    }


def main() -> None:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument(
        "--slow-subset",
        action="store_true",
        help="also run pdfplumber and mineru, on the two-column papers and the slides",
    )
    args = parser.parse_args()
    everything = sorted(LIBRARY.glob("*.pdf"))
    subset = [LIBRARY / name for name in SLOW_SUBSET]
    plan = [("pdfium", everything), ("pdfium-notables", everything), ("pdfium", subset)]
    if args.slow_subset:
        plan += [("pdfplumber", subset), ("mineru", subset)]
    rows = []
    for name, files in plan:
        try:
            rows.append(measure(name, files))
        except Exception as exc:  # a missing optional parser is a row, not a crash
            rows.append({"parser": name, "docs": len(files), "error": str(exc)[:80]})
        print(f"done {name} on {len(files)} docs", file=sys.stderr)
    columns = [
        "parser",
        "docs",
        "pages",
        "wall_s",
        "cpu_s",
        "pages_per_cpu_s",
        "headings",
        "tables",
        "formulas",
        "code",
        "lists",
        "paragraphs",
        "empty",
        "bad_pages",
        "two_col_ok",
        "garbled",
    ]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(row.get(c, "")) for c in columns) + " |" for row in rows]
    lines += [f"{row['parser']}: {row['error']}" for row in rows if "error" in row]
    harness.emit(args, {"rows": rows}, lines)


if __name__ == "__main__":
    main()
