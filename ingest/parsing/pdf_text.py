"""Joining wrapped PDF lines into running text, with conservative de-hyphenation."""

from __future__ import annotations

import re

from ingest.parsing.pdf_lines import HYPHEN_MARK

_WORD_BEFORE = re.compile(r"(\w+)$")
_WORD_AFTER = re.compile(r"^(\w+)")
_HYPHENATED = re.compile(r"\b\w+(?:-\w+)+\b")


def hyphenated_words(texts: list[str]) -> set[str]:
    """Words written with a hyphen inside a line somewhere in the document (e.g. 'two-sided')."""
    found: set[str] = set()
    for text in texts:
        found.update(w.lower() for w in _HYPHENATED.findall(text))
    return found


def join_lines(lines: list[str], keep_hyphen: set[str]) -> str:
    """Join wrapped lines with one space; a line-break hyphen is removed only when it clearly
    splits one word (lower-case letters on both sides, and the document never writes the pair
    with a hyphen inside a line); otherwise the hyphen stays and the halves are glued."""
    out = ""
    for line in lines:
        line = line.strip()
        if not out:
            out = line
            continue
        if out.endswith(HYPHEN_MARK):
            head = out[: -len(HYPHEN_MARK)]
            before, after = _WORD_BEFORE.search(head), _WORD_AFTER.match(line)
            wrapped = (before and after and before.group(1)[-1].islower() and after.group(1)[0].islower()
                       and f"{before.group(1)}-{after.group(1)}".lower() not in keep_hyphen)
            out = head + ("" if wrapped else "-") + line
        elif out.endswith("-") and not out.endswith(" -") and line[:1].isalnum():
            out += line
        else:
            out += " " + line
    return out.replace(HYPHEN_MARK, "-")
