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

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # run as a script from anywhere
sys.path.insert(0, str(REPO / "scripts"))

from rebuild_ligature_words import scowl_main  # noqa: E402

from ingest.parsing.vocabulary import DICTIONARY_FILE  # noqa: E402

MAX_SIZE = 60  # SCOWL's sizes: 35 small ... 50 medium ... 60 (wamerican-large) ... 70 large ... 95 insane
MIN_LETTERS = 5
NOTICE = """\
English words of {letters} letters or more, from SCOWL (Spell Checker Oriented Word Lists) size {size},
all English variants, as Debian's 'scowl' package {version} ships them; written by
scripts/rebuild_english_words.py. SCOWL's copyright and permission notices, as that package states
them, follow.

"""


def english_list(words: set[str]) -> list[str]:
    return sorted(w for w in words if len(w) >= MIN_LETTERS)


def main() -> None:
    notice = NOTICE.replace("{letters}", str(MIN_LETTERS))
    scowl_main(__doc__.splitlines()[0], MAX_SIZE, DICTIONARY_FILE, english_list, notice)


if __name__ == "__main__":
    main()
