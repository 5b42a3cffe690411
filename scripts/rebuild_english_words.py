"""Rebuild the frozen English word list (ingest/parsing/vocabulary.py's DICTIONARY_FILE) from SCOWL,
as Debian ships it — a maintainer's step, never run by the pipeline or CI (the list is committed);
bump PARSER_VERSION after it:

    apt-get install scowl
    .venv/bin/python scripts/rebuild_english_words.py

The list holds the lower-case ASCII words of SCOWL's word lists up to size 60 (every English
variant; no proper names, abbreviations or upper-case words) of MIN_LETTERS letters or more: TeX
breaks a word with at least two letters before the hyphen and three after it, so a word it broke
has five. SCOWL's copyright and permission notices travel in the file's header, as its licence asks.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # run as a script from anywhere
sys.path.insert(0, str(REPO / "scripts"))

from rebuild_ligature_words import SCOWL, SCOWL_COPYRIGHT, _scowl_version, scowl_words, write_list  # noqa: E402

from ingest.parsing.vocabulary import DICTIONARY_FILE  # noqa: E402

MAX_SIZE = 60  # SCOWL's sizes: 35 small ... 50 medium ... 60 (wamerican-large) ... 70 large ... 95 insane
MIN_LETTERS = 5
NOTICE = """\
English words of {letters} letters or more, from SCOWL (Spell Checker Oriented Word Lists) size {size},
all English variants, as Debian's 'scowl' package {version} ships them; written by
scripts/rebuild_english_words.py. SCOWL's copyright and permission notices, as that package states
them, follow.

"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scowl", type=Path, default=SCOWL, help="SCOWL's lists (Debian: /usr/share/dict/scowl)")
    parser.add_argument("--max-size", type=int, default=MAX_SIZE)
    parser.add_argument("--target", type=Path, default=DICTIONARY_FILE)
    args = parser.parse_args()
    if not args.scowl.is_dir():
        sys.exit(f"{args.scowl} not found: apt-get install scowl")
    words = sorted(w for w in scowl_words(args.scowl, args.max_size) if len(w) >= MIN_LETTERS)
    notice = NOTICE.format(letters=MIN_LETTERS, size=args.max_size, version=_scowl_version())
    if SCOWL_COPYRIGHT.exists():
        notice += SCOWL_COPYRIGHT.read_text(encoding="utf-8")
    write_list(words, args.target, notice)
    print(f"{len(words)} words -> {args.target}")


if __name__ == "__main__":
    main()
