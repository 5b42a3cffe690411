"""Mutated PDFs made from the library's own files, and the intake + parse of one of them in a
worker process under a time bound (tests/ingest/test_fuzz_parser.py; run as a script it prints
the mutation kind x outcome table):

    .venv/bin/python tests/fuzz_pdf.py [PER_KIND]

Kinds: truncated, bytes flipped, xref broken, an object deleted (cut out or blanked in place),
encrypted (pypdf), 0 pages, an incremental update whose page tree claims a huge page count. Every
mutation is a function of (source bytes, seed).
Outcomes: `parsed` (canonical text stored), `rejected` (validation quarantined it with a reason),
`set_aside` (the parse raised; its reason recorded and nothing stored), or a failure of the
harness's promise: `crash` (the worker died), `hang` (past the bound), `partial` (something stored
for a document that was not parsed).
"""

from __future__ import annotations

import io
import random
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from pathlib import Path

LIBRARY_PDF = Path(__file__).resolve().parents[1] / "library" / "pdf"
SOURCES = (
    "bennett_custom_moment_objective_functions.pdf",
    "schumann_repairing_solutions.pdf",
    "bennett_portfolio_optimization_with_roi.pdf",
)
KINDS = ("truncated", "flipped", "xref_broken", "object_deleted", "encrypted", "zero_pages", "huge_page_count")
GOOD = ("parsed", "rejected", "set_aside")
_OBJECT = re.compile(rb"\n(\d+) 0 obj\b.*?endobj", re.S)


def _truncated(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randint(1, len(data) - 1)]


def _flipped(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.choice((1, 8, 64, 512))):
        i = rng.randrange(16, len(out))  # past the header, which validation reads first
        out[i] ^= 1 << rng.randrange(8)
    return bytes(out)


def _xref_broken(data: bytes, rng: random.Random) -> bytes:
    at = data.rfind(b"startxref")
    mode = rng.randrange(3)
    if mode == 0:  # startxref points elsewhere
        tail = re.sub(rb"startxref\s+\d+", b"startxref\n%d" % rng.randrange(len(data)), data[at:], count=1)
        return data[:at] + tail
    if mode == 1:  # startxref still right, the section it points at scrambled: pdfium must rebuild
        xref = int(re.findall(rb"startxref\s+(\d+)", data)[-1])
        body = bytearray(data)
        if data[xref : xref + 4] == b"xref":  # a classic table: its offsets
            for m in re.finditer(rb"\d{10} \d{5} [nf]", data[xref : xref + 20000]):
                if rng.random() < 0.5:
                    body[xref + m.start() : xref + m.start() + 10] = b"%010d" % rng.randrange(len(data))
        else:  # a cross-reference stream: its compressed data
            start = data.find(b"stream", xref) + 7
            end = data.find(b"endstream", start)
            for _ in range(rng.choice((1, 4, 16))):
                body[rng.randrange(start, max(start + 1, end))] ^= 1 << rng.randrange(8)
        return bytes(body)
    return data.replace(b"xref", b"xraf", 1).replace(b"/XRef", b"/XRaf", 1)  # the section renamed


def _object_deleted(data: bytes, rng: random.Random) -> bytes:
    """One object removed: cut out (later offsets shift) or blanked in place (offsets still right,
    so the file passes the envelope check and the parser meets a dangling reference)."""
    objects = list(_OBJECT.finditer(data))
    m = objects[rng.randrange(len(objects))]
    filler = b"" if rng.random() < 0.3 else b" " * (m.end() - m.start())
    return data[: m.start()] + filler + data[m.end() :]


def _pypdf_bytes(writer) -> bytes:
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def _encrypted(data: bytes, rng: random.Random) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    algorithm = rng.choice(("RC4-40", "RC4-128", "AES-128", "AES-256"))
    user = rng.choice(("", "secret"))  # an empty user password opens without asking
    writer.encrypt(user_password=user, owner_password="owner", algorithm=algorithm)
    return _pypdf_bytes(writer)


def _zero_pages(data: bytes, rng: random.Random) -> bytes:
    from pypdf import PdfReader, PdfWriter

    if rng.random() < 0.5:
        return _pypdf_bytes(PdfWriter())
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    for index in range(len(writer.pages) - 1, -1, -1):
        writer.remove_page(index)
    return _pypdf_bytes(writer)


def _huge_page_count(data: bytes, rng: random.Random) -> bytes:
    """An incremental update (the PDF way to amend a file) whose page tree lists the first page N
    times (N from 5,001 to 1,000,000), or claims N in /Count over its one kid."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    pages_ref = reader.trailer["/Root"].get_object()["/Pages"].indirect_reference
    first = reader.pages[0].indirect_reference.idnum
    n = rng.choice((5_001, 20_000, 200_000, 1_000_000))
    kids = f"{first} 0 R " * (n if rng.random() < 0.5 and n <= 200_000 else 1)
    previous = int(re.findall(rb"startxref\s+(\d+)", data)[-1])
    body = data if data.endswith(b"\n") else data + b"\n"
    at = len(body)
    obj = f"{pages_ref.idnum} 0 obj\n<< /Type /Pages /Kids [ {kids}] /Count {n} >>\nendobj\n".encode()
    xref_at = at + len(obj)
    size = int(reader.trailer["/Size"])
    root = reader.trailer.raw_get("/Root")
    tail = (
        f"xref\n0 1\n0000000000 65535 f \n{pages_ref.idnum} 1\n{at:010d} 00000 n \n"
        f"trailer\n<< /Size {size} /Root {root.idnum} 0 R /Prev {previous} >>\n"
        f"startxref\n{xref_at}\n%%EOF\n"
    ).encode()
    return body + obj + tail


MUTATIONS = {
    "truncated": _truncated,
    "flipped": _flipped,
    "xref_broken": _xref_broken,
    "object_deleted": _object_deleted,
    "encrypted": _encrypted,
    "zero_pages": _zero_pages,
    "huge_page_count": _huge_page_count,
}


def make_cases(folder: Path, per_kind: int, first_seed: int = 0) -> list[tuple[str, Path]]:
    """per_kind mutated files of each kind under `folder`, seeds first_seed.. (deterministic)."""
    sources = [(LIBRARY_PDF / name).read_bytes() for name in SOURCES]
    cases = []
    for kind, mutate in MUTATIONS.items():
        for seed in range(first_seed, first_seed + per_kind):
            rng = random.Random(f"{kind}-{seed}")
            path = folder / f"{kind}-{seed:03d}.pdf"
            path.write_bytes(mutate(sources[seed % len(sources)], rng))
            cases.append((kind, path))
    return cases


def intake_and_parse(path: str, home: str) -> tuple[str, str]:
    """The project's path for one file: register (validation, quarantine with a reason), parse,
    set aside on failure. Runs in a worker process."""
    from corpus.state.layout import StateLayout
    from ingest.passages.parse import parse_document
    from ingest.sources.register import register_file
    from ingest.sources.setaside import mark_set_aside

    layout = StateLayout(Path(home)).ensure()
    registration = register_file(layout, Path(path))
    if registration.rejected:
        return "rejected", registration.rejected
    document_id = registration.document_id
    try:
        parsed = parse_document(layout, document_id)
    except Exception as exc:  # noqa: BLE001 — the stage's own rule: the document is set aside
        reason = mark_set_aside(layout, document_id, "parse", exc)
        stored = [p.name for p in (layout.canonical_text(document_id), layout.parsed_blocks(document_id)) if p.exists()]
        return ("partial", f"{reason}; stored {stored}") if stored else ("set_aside", reason)
    text = layout.canonical_text(document_id).read_text(encoding="utf-8")
    if len(text) != parsed.canonical_chars or not text.strip():
        return "partial", "canonical text does not match its record"
    return "parsed", f"{parsed.pages} pages, {parsed.canonical_chars} chars"


class Runner:
    """One spawned worker at a time; a crashed or hung worker is replaced and the batch goes on."""

    def __init__(self) -> None:
        self._pool = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(1, mp_context=get_context("spawn"))
        return self._pool

    def _kill(self) -> None:
        for process in list(getattr(self._pool, "_processes", {}).values()):
            process.kill()
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = None

    def run(self, path: Path, home: Path, bound: float) -> tuple[str, str, float]:
        started = time.monotonic()
        future = self._executor().submit(intake_and_parse, str(path), str(home))
        try:
            outcome, reason = future.result(timeout=bound)
        except FutureTimeout:
            self._kill()
            outcome, reason = "hang", f"no answer within {bound:.0f} s"
        except BrokenProcessPool:
            self._kill()
            outcome, reason = "crash", "the worker process died"
        return outcome, reason, time.monotonic() - started

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)


def run_batch(folder: Path, per_kind: int, bound: float, first_seed: int = 0) -> list[dict]:
    """Make and run the cases; one fresh state per case (a file is judged on its own)."""
    runner, results = Runner(), []
    try:
        for kind, path in make_cases(folder, per_kind, first_seed):
            outcome, reason, seconds = runner.run(path, folder / f"home-{path.stem}", bound)
            results.append(
                {"kind": kind, "file": path.name, "outcome": outcome, "reason": reason, "seconds": round(seconds, 2)}
            )
    finally:
        runner.close()
    return results


def table(results: list[dict]) -> str:
    outcomes = GOOD + ("crash", "hang", "partial")
    lines = [f"{'kind':16} " + " ".join(f"{o:>9}" for o in outcomes) + f" {'max s':>6}"]
    for kind in KINDS:
        rows = [r for r in results if r["kind"] == kind]
        if rows:
            lines.append(
                f"{kind:16} "
                + " ".join(f"{sum(r['outcome'] == o for r in rows):9d}" for o in outcomes)
                + f" {max(r['seconds'] for r in rows):6.1f}"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        batch = run_batch(Path(tmp), int(sys.argv[1]) if len(sys.argv) > 1 else 30, bound=120.0)
    print(table(batch))
    for row in batch:
        if row["outcome"] not in GOOD:
            print(row)
    reasons: dict[str, int] = {}
    for row in batch:
        key = f"{row['outcome']}: {re.sub(r'[0-9]+', 'N', row['reason'])[:110]}"
        reasons[key] = reasons.get(key, 0) + 1
    for key, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
        print(f"{n:4d}  {key}")
