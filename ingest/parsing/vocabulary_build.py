"""Rebuild the frozen library vocabulary (ingest/parsing/vocabulary.py) from the bundled library:

    .venv/bin/python -m ingest.parsing.vocabulary_build
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Iterable

from ingest.parsing.pdf import read_lines
from ingest.parsing.vocabulary import VOCABULARY_FILE, build_vocabulary


def _library_texts(library: Path) -> Iterable[str]:
    for path in sorted((library / "markdown").glob("*.md")):
        yield path.read_text(encoding="utf-8")
    for path in sorted((library / "pdf").glob("*.pdf")):
        pages, _ = read_lines(path)
        yield "\n".join(line.text for lines in pages for line in lines)


def main() -> None:
    library = Path(__file__).resolve().parents[2] / "library"
    words = build_vocabulary(_library_texts(library))
    # mtime=0: the same words give the same bytes
    with open(VOCABULARY_FILE, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as handle:
        handle.write(("\n".join(words) + "\n").encode("utf-8"))
    print(f"{len(words)} words -> {VOCABULARY_FILE}")


if __name__ == "__main__":
    main()
