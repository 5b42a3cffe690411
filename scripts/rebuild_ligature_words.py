"""Rebuild the frozen English ligature word list (ingest/parsing/ligatures.py) from SCOWL, Kevin
Atkinson's Spell Checker Oriented Word Lists as Debian ships them — a maintainer's step, never run
by the pipeline or CI (the list is committed); bump PARSER_VERSION after it:

    apt-get install scowl
    .venv/bin/python scripts/rebuild_ligature_words.py

The list holds the lower-case ASCII words of SCOWL's word lists up to size 70 (every English
variant; no proper names, abbreviations or upper-case words) that contain ff, fi or fl, and the
words of those lists that one of them becomes when one ligature is taken out ('ow' of 'flow',
'dene' of 'define'): the two facts the restoration of a dropped ligature asks the list. SCOWL's
copyright and permission notices travel in the file's header, as its licence asks.
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # run as a script from anywhere

from ingest.parsing.ligatures import LIGATURES, WORD_LIST_FILE, ligature_free_forms  # noqa: E402

SCOWL = Path("/usr/share/dict/scowl")
SCOWL_COPYRIGHT = Path("/usr/share/doc/scowl/copyright")
MAX_SIZE = 70  # SCOWL's sizes: 35 small ... 50 medium (wamerican) ... 70 large ... 95 insane
NOTICE = """\
English words holding a ligature (ff, fi, fl, ffi, ffl) and the English words they become with one
ligature taken out, from SCOWL (Spell Checker Oriented Word Lists) size {size}, all English variants,
as Debian's 'scowl' package {version} ships them; written by scripts/rebuild_ligature_words.py.
SCOWL's copyright and permission notices, as that package states them, follow.

"""
_LIST = re.compile(r"^(?P<region>[a-z_0-9]+)-words\.(?P<size>\d+)$")


def scowl_words(folder: Path, max_size: int = MAX_SIZE) -> set[str]:
    """The lower-case ASCII words of SCOWL's '<variant>-words.<size>' lists up to `max_size`."""
    words: set[str] = set()
    for path in sorted(folder.iterdir()):
        match = _LIST.match(path.name)
        if match is None or match["region"].startswith("special") or int(match["size"]) > max_size:
            continue
        for line in path.read_text(encoding="latin-1").splitlines():
            word = line.strip()
            if word.isascii() and word.isalpha() and word.islower():
                words.add(word)
    return words


def ligature_list(words: set[str]) -> list[str]:
    """The words holding a ligature, and the words of `words` they become with one taken out."""
    holders = {w for w in words if any(lig in w for lig in LIGATURES)}
    free = {form for w in holders for form in ligature_free_forms(w) if form in words}
    return sorted(holders | free)


def write_list(words: list[str], target: Path, notice: str) -> None:
    """The words, one a line, after `notice` as '# ' comment lines (gzip)."""
    header = "".join(f"# {line}".rstrip() + "\n" for line in notice.splitlines())
    # mtime=0: the same words give the same bytes
    with open(target, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as handle:
        handle.write((header + "\n".join(words) + "\n").encode("utf-8"))


def _scowl_version() -> str:
    changelog = Path("/usr/share/doc/scowl/changelog.Debian.gz")
    if changelog.exists():
        with gzip.open(changelog, "rt", encoding="utf-8") as handle:
            match = re.match(r"scowl \(([^)]+)\)", handle.readline())
            if match:
                return match[1]
    return "(version unknown)"


def scowl_main(description: str, max_size: int, target: Path, select, notice: str) -> None:
    """The rebuild scripts' one command line: SCOWL's lists up to --max-size, `select(words)` of
    them written to --target under `notice` (formatted with the size and the package version),
    followed by SCOWL's copyright and permission notices."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--scowl", type=Path, default=SCOWL, help="SCOWL's final/ lists (Debian: /usr/share/dict/scowl)"
    )
    parser.add_argument("--max-size", type=int, default=max_size)
    parser.add_argument("--target", type=Path, default=target)
    args = parser.parse_args()
    if not args.scowl.is_dir():
        sys.exit(f"{args.scowl} not found: apt-get install scowl")
    words = select(scowl_words(args.scowl, args.max_size))
    header = notice.format(size=args.max_size, version=_scowl_version())
    if SCOWL_COPYRIGHT.exists():
        header += SCOWL_COPYRIGHT.read_text(encoding="utf-8")
    write_list(words, args.target, header)
    print(f"{len(words)} words -> {args.target}")


def main() -> None:
    scowl_main(__doc__.splitlines()[0], MAX_SIZE, WORD_LIST_FILE, ligature_list, NOTICE)


if __name__ == "__main__":
    main()
