"""scripts/rebuild_vocabulary.py: the maintainer's step that writes the frozen library vocabulary."""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_a_word_two_lectures_write_is_kept_and_a_word_one_writes_is_not(tmp_path):
    library = tmp_path / "library"
    (library / "markdown").mkdir(parents=True)
    (library / "pdf").mkdir()
    (library / "markdown" / "a.md").write_text("Volatility clustering in returns. Zyzzyva.\n", encoding="utf-8")
    (library / "markdown" / "b.md").write_text("Returns show volatility clustering.\n", encoding="utf-8")
    target = tmp_path / "vocabulary.txt.gz"
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "rebuild_vocabulary.py"),
            "--library",
            str(library),
            "--target",
            str(target),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    words = gzip.decompress(target.read_bytes()).decode("utf-8").split()
    assert {"volatility", "clustering", "returns"} <= set(words)
    assert "zyzzyva" not in words
    assert f"{len(words)} words" in done.stdout


def test_the_same_library_gives_the_same_bytes(tmp_path):
    library = tmp_path / "library"
    (library / "pdf").mkdir(parents=True)
    shutil.copytree(REPO / "library" / "markdown", library / "markdown")
    outputs = []
    for run in ("one", "two"):  # the gzip header names the file: the same name in two folders
        target = tmp_path / run / "vocabulary.txt.gz"
        target.parent.mkdir()
        subprocess.run(
            [
                sys.executable,
                str(REPO / "scripts" / "rebuild_vocabulary.py"),
                "--library",
                str(library),
                "--target",
                str(target),
            ],
            capture_output=True,
            check=True,
        )
        outputs.append(target.read_bytes())
    assert outputs[0] == outputs[1] and len(outputs[0]) > 1000
