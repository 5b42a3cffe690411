"""Passage roles: which passages are document furniture rather than content.

A table of contents, a title block, a reference list or an index answers no research question,
yet shares the question's words (a contents line names every topic of the document), so it can
outrank the passage that does answer. Each passage gets one role, computed from its section path
and text alone (deterministic, no model); the server ranks furniture only when a question asks
for it (serving.furniture). The text itself is never changed.

Rules, in order (the first that holds wins):
* references: the passage's own section is named References, Bibliography, Literature cited …
  (numbering, a trailing colon or page number ignored: "7 References", "References:").
* index: its section is named Index (subject / author index), or most of its lines are index
  entries ("term, 12, 45–47").
* contents: its section is named Contents, or at least TOC_MIN_LINES lines and TOC_SHARE of its
  lines are contents lines (a title ending in a page number, often after dot leaders).
* title_block: the document's first passage, short, legible, with no sentence of running prose
  (title, authors, affiliations, date, e-mail).
"""

from __future__ import annotations

import re

from corpus.models import Passage, PassageRole

REFERENCE_SECTIONS = frozenset(
    {
        "references",
        "reference",
        "bibliography",
        "literature cited",
        "works cited",
        "reference list",
        "references and notes",
    }
)
INDEX_SECTIONS = frozenset({"index", "subject index", "author index", "name index"})
CONTENTS_SECTIONS = frozenset({"contents", "table of contents", "contents of the book"})
TOC_MIN_LINES, TOC_SHARE = 4, 0.5
INDEX_MIN_LINES, INDEX_SHARE = 8, 0.6
TITLE_BLOCK_MAX_CHARS = 800
# A prose sentence: PROSE_MIN_WORDS words or more, PROSE_MIN_FUNCTION of them function words
# (a title or an author line has at most one or two: "Measures of Dispersion", "A and B").
PROSE_MIN_WORDS, PROSE_MIN_FUNCTION = 8, 3
FUNCTION_WORDS = frozenset(
    "the a an is are was were we this that to in for with be it which our can will these how its has have not".split()
)

_NUMBERING = re.compile(r"^(?:[\dIVXivx]+[.)]?)+\s+|[:.]+$|\s+\d+$")
# an optional section number, a title without digits, then a page number (after dot leaders or a space)
_TOC_LINE = re.compile(
    r"^\s*(?:(?:\d+|[A-Z])(?:\.\d+)*\.?\s+)?[^\W\d][^\d|=]*?"
    r"(?:\s*(?:\.\s?){3,}\s*|\s+)\d{1,4}\s*$"
)
_INDEX_LINE = re.compile(
    r"^\s*[^\W\d][^,\n]{0,80},\s*\d{1,4}(?:\s*[-–]\s*\d{1,4})?"
    r"(?:\s*,\s*\d{1,4}(?:\s*[-–]\s*\d{1,4})?)*\s*$"
)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n")
_WORD = re.compile(r"[A-Za-z]+")


def section_name(passage: Passage) -> str:
    """The passage's own section heading, case-folded, numbering and trailing marks dropped."""
    if not passage.section:
        return ""
    name = " ".join(passage.section[-1].split()).casefold()
    previous = None
    while previous != name:
        previous, name = name, _NUMBERING.sub("", name).strip()
    return name


def _lines(text: str) -> list[str]:
    """Non-empty lines outside code fences (printed output lines often end in a number)."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif line.strip() and not fenced:
            out.append(line)
    return out


def _share(lines: list[str], pattern: re.Pattern, minimum: int, share: float) -> bool:
    hits = sum(1 for line in lines if pattern.match(line))
    return hits >= minimum and hits >= share * len(lines)


def has_prose(text: str) -> bool:
    """True when the text holds at least one sentence of running prose."""
    for sentence in _SENTENCE_SPLIT.split(text):
        words = [w.lower() for w in _WORD.findall(sentence)]
        if len(words) >= PROSE_MIN_WORDS and sum(w in FUNCTION_WORDS for w in words) >= PROSE_MIN_FUNCTION:
            return True
    return False


def passage_role(passage: Passage) -> PassageRole:
    """The role of one passage (see the module docstring for the rules)."""
    section = section_name(passage)
    lines = _lines(passage.text)
    if section in REFERENCE_SECTIONS:
        return "references"
    if section in INDEX_SECTIONS or _share(lines, _INDEX_LINE, INDEX_MIN_LINES, INDEX_SHARE):
        return "index"
    if section in CONTENTS_SECTIONS or _share(lines, _TOC_LINE, TOC_MIN_LINES, TOC_SHARE):
        return "contents"
    # garbled text (a broken font mapping) hides its prose from the word test: leave it as body
    if (
        passage.ordinal == 0
        and not passage.garbled_text
        and len(passage.text) <= TITLE_BLOCK_MAX_CHARS
        and not has_prose(passage.text)
    ):
        return "title_block"
    return "body"


def with_roles(passages: list[Passage]) -> list[Passage]:
    """The passages with their role set (new objects; ids, text and ranges unchanged)."""
    return [p.model_copy(update={"role": passage_role(p)}) for p in passages]
