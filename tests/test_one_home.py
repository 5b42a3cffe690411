"""One home per decision: windows, model id, state home and versions are defined once.

A literal copy elsewhere in the packages would drift from its home silently; this test fails instead.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("corpus", "ingest", "assets", "orchestration", "serving", "evaluation", "cli")

HOMES = {
    r"\b10_?000\b(?!_)": "serving/answer/contract.py",  # search window
    r"\b15_?000\b": "serving/answer/contract.py",  # get_passage window
    r"all-MiniLM-L6-v2\"": "corpus/config.py",  # default embedding model id
    r"[\"']\./var[\"']": "corpus/state/layout.py",  # default state home
    r"[\"']parse-v\d": "corpus/versions.py",
    r"[\"']chunk-v\d": "corpus/versions.py",
}
# Named exceptions: a different decision that happens to use the same number.
ALLOWED = {("corpus/vectors/vector_store_edge.py", r"\b10_?000\b(?!_)")}  # Qdrant's full-scan threshold


def _sources():
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            yield path.relative_to(REPO).as_posix(), path.read_text(encoding="utf-8")


def test_each_decision_has_one_home():
    strays = []
    for pattern, home in HOMES.items():
        for name, text in _sources():
            code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
            if name != home and (name, pattern) not in ALLOWED and re.search(pattern, code):
                strays.append(f"{name}: {pattern} (home: {home})")
    assert strays == []


def test_the_homes_still_define_them():
    for pattern, home in HOMES.items():
        assert re.search(pattern, (REPO / home).read_text(encoding="utf-8")), (pattern, home)
