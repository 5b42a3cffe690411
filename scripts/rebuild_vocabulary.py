"""Rebuild the frozen library vocabulary (ingest/parsing/vocabulary.py) from the bundled library —
a maintainer's step, never run by the pipeline; bump PARSER_VERSION after it:

    .venv/bin/python scripts/rebuild_vocabulary.py
"""

from __future__ import annotations

import argparse
import gzip
import sys
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # run as a script from anywhere

from ingest.parsing.pdf import read_lines  # noqa: E402
from ingest.parsing.vocabulary import VOCABULARY_FILE, build_vocabulary  # noqa: E402


def library_texts(library: Path) -> Iterable[str]:
    """Every bundled document's text as read before any repair: lectures, then PDFs."""
    for path in sorted((library / "markdown").glob("*.md")):
        yield path.read_text(encoding="utf-8")
    for path in sorted((library / "pdf").glob("*.pdf")):
        pages, _ = read_lines(path)
        yield "\n".join(line.text for lines in pages for line in lines)


def write_vocabulary(library: Path, target: Path) -> int:
    """Write the vocabulary of `library` to `target` (gzip); returns the number of words."""
    words = build_vocabulary(library_texts(library))
    # mtime=0: the same words give the same bytes
    with open(target, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as handle:
        handle.write(("\n".join(words) + "\n").encode("utf-8"))
    return len(words)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", type=Path, default=REPO / "library")
    parser.add_argument("--target", type=Path, default=VOCABULARY_FILE)
    args = parser.parse_args()
    print(f"{write_vocabulary(args.library, args.target)} words -> {args.target}")


if __name__ == "__main__":
    main()
