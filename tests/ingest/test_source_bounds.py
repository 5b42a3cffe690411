"""The memory bound on hostile text sources: a Markdown file above MAX_MARKDOWN_BYTES is refused
unread, and parsing and chunking one at the bound (one line, or paragraphs) peaks under
MARKDOWN_PEAK_MB resident, measured in a fresh process.

The peak is the process's own high-water mark (VmHWM, Linux): ru_maxrss is carried over an exec
from the process that started it, so in a child of pytest it reads pytest's peak when that is
higher (~100 MB after the test wrote an 18 MB file). Where /proc is absent, ru_maxrss stands in."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.parsing.validate import MARKDOWN_PEAK_MB, MAX_MARKDOWN_BYTES, RejectedSource, check_source

REPO = Path(__file__).resolve().parents[2]
SENTENCE = "The portfolio's variance falls as assets are added, until only market risk is left. "
MEASURE = """
import json, resource, sys
from pathlib import Path
from corpus.text.canonical import assemble_canonical
from ingest.passages.chunker import chunk_document
from ingest.parsing import parse_source
from ingest.parsing.validate import RejectedSource, check_source

path = Path(sys.argv[1])
try:
    checked = check_source(path)
except RejectedSource as exc:
    result = {"refused": exc.reason}
else:
    canonical, blocks = assemble_canonical(parse_source(path, checked.format).raw_blocks)
    result = {"chars": len(canonical), "passages": len(chunk_document("doc-0000000000000000", canonical, blocks))}
result["ru_maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes
status = Path("/proc/self/status")
lines = status.read_text().splitlines() if status.exists() else []
hwm = [line.split()[1] for line in lines if line.startswith("VmHWM:")]
result["peak_mb"] = int(hwm[0]) / 1024 if hwm else result["ru_maxrss_mb"]
print(json.dumps(result))
"""


def _write(path: Path, size: int, paragraphs: bool) -> Path:
    body_size = size - len("# A hostile file\n\n") - 1
    if paragraphs:
        paragraph = SENTENCE * 12 + "\n\n"
        body = (paragraph * (body_size // len(paragraph) + 1))[:body_size]
    else:
        body = (SENTENCE * (body_size // len(SENTENCE) + 1))[:body_size]
    path.write_text("# A hostile file\n\n" + body + "\n", encoding="utf-8")
    assert path.stat().st_size == size
    return path


def _measure(path: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(path)], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("paragraphs", [False, True], ids=["one_line", "paragraphs"])
def test_parsing_a_markdown_file_at_the_bound_stays_under_the_memory_bound(tmp_path, paragraphs):
    path = _write(tmp_path / "at_bound.md", MAX_MARKDOWN_BYTES, paragraphs)
    result = _measure(path)
    print(f"\n{path.name} ({'paragraphs' if paragraphs else 'one line'}): {result}")
    assert result["chars"] > 0.99 * MAX_MARKDOWN_BYTES and result["passages"] > 2000
    assert result["peak_mb"] < MARKDOWN_PEAK_MB


def test_an_18_mb_one_line_markdown_file_is_refused_unread(tmp_path):
    path = _write(tmp_path / "hostile.md", 18_000_000, paragraphs=False)
    result = _measure(path)
    assert result["refused"] == f"Markdown file too large (18,000,000 bytes > {MAX_MARKDOWN_BYTES:,})"
    assert result["peak_mb"] < 100  # refused from its size: never read


def test_one_byte_over_the_bound_is_refused(tmp_path):
    path = _write(tmp_path / "over.md", MAX_MARKDOWN_BYTES + 1, paragraphs=True)
    with pytest.raises(RejectedSource, match="Markdown file too large"):
        check_source(path)
