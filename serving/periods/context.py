"""Where a period expression dates the library's documents, and where it is only content.

A period counts when it is attached to a publication word ("papers published before 2010", "work
from before 2012", "documented around 2014"), when it qualifies one ("a 2017 comparison",
"pre-2008 literature", "recent work"), or when it stands alone as a part of the question set off
by punctuation ("Since 2015, how …", "… (up to 2011)", "…, in or before 2011?"). Elsewhere a year
is content ("How did volatility behave before 2010?", "returns from 1990 to 2000"). A number that
counts, labels or sizes something is never a year ("2000 observations", "section 2010").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from serving.periods.grammar import DECADE, YEAR, Said, decade, decade_start, read, relative, temporal
from serving.periods.words import (
    AROUND,
    COUNT_AFTER,
    COUNT_BEFORE,
    DIRECTION_RE,
    EVENT,
    FILLER,
    NOUN,
    PARTICIPLE,
    QUANTITY_BEFORE,
    RECENT_YEARS,
)

T = temporal()
_FLAGS = re.IGNORECASE
_ATTACHED = re.compile(
    rf"\b(?:(?P<noun>{NOUN})|(?:as\s+)?(?P<part>{PARTICIPLE}))\b(?P<fill>{FILLER})\s*"
    rf"(?P<open>\(\s*)?{T}(?(open)\s*\))",
    _FLAGS,
)
_CHAINED = re.compile(rf"\s*,?\s*(?:and|but|et|mais)(?:\s+(?:{PARTICIPLE}|only|also))*\s+{T}", _FLAGS)
_EITHER = re.compile(rf"\s*,?\s*(?:or|ou)(?:\s+(?:{PARTICIPLE}|only|also))*\s+{T}", _FLAGS)  # a union
_TEMPORAL = re.compile(T, _FLAGS)
_DIRECTION_BEFORE = re.compile(rf"\b(?:{DIRECTION_RE}|{AROUND})\s+$", _FLAGS)
_NOT_BETWEEN = r"(?:on|of|in|about|for|and|or|to|the|a|an|with|by|from|at|as|that|which|is|are|was|were)\b"
_ADJECTIVE = re.compile(
    rf"(?<![\w-])(?:(?P<pp>pre|post|pré)[-\s]?(?P<py>{YEAR})|{DECADE.format(q='aq', d='ad', t='at', w='aw')}"
    rf"|(?P<ar1>{YEAR})\s*[-–—]\s*(?P<ar2>{YEAR})|(?P<jy>{YEAR})"
    rf"|(?P<recent>(?:more\s+|most\s+)?(?:recent|latest|newest)|recently[-\s]published)){EVENT}"
    rf"(?=(?:[-\s]+(?!{_NOT_BETWEEN})[\w-]+){{0,2}}?[-\s]+(?:{NOUN})\b)",
    _FLAGS,
)
_FRENCH_RECENT = re.compile(rf"\b(?:{NOUN})\s+(?P<fr>récente?s?)\b", _FLAGS)
_LEAD = (
    rf"(?:(?:{PARTICIPLE}|only|but|and|or|especially|preferably|ideally|for|among|considering"
    r"|i\.e\.|e\.g\.|say|that\s+is)[\s,]+)*"
)
_SEGMENT = re.compile(rf"(?:^|(?<=[,;:(—–])|(?<=\s-))\s*(?P<lead>{_LEAD}){T}(?:\s+only)?\s*", _FLAGS)
_YEAR_GROUPS = ("r1", "r2", "oy", "dy", "ay", "iy", "by", "py", "ar1", "ar2", "jy")


@dataclass(frozen=True)
class Clause:
    """A period clause: its span in the question (removed from the searched text) and what it says."""

    start: int
    end: int
    said: tuple[Said, ...]


def counts(question: str, m: re.Match, adjective: bool = False) -> bool:
    """True when a number of the match counts, labels or sizes something instead of dating it."""
    for name in _YEAR_GROUPS:
        if name in m.re.groupindex and m.group(name):
            before, after = question[max(0, m.start(name) - 40) : m.start(name)], question[m.end(name) :]
            if COUNT_BEFORE.search(before) or COUNT_AFTER.match(after):
                return True
            if adjective and QUANTITY_BEFORE.search(before):
                return True
    return False


def attached(question: str, newest: int | None) -> list[Clause]:
    found = []
    for m in _ATTACHED.finditer(question):
        participle = bool(m.group("part")) or bool(re.search(PARTICIPLE, m.group("fill") or "", _FLAGS))
        said = read(m, newest)
        if said is None or counts(question, m) or (said.kind == "bare" and not participle):
            continue
        if (
            said.kind == "direction"
            and m.group("noun")
            and said.year_max is None
            and not m.group("dsuf")
            and m.group("dir").lower() == "from"
            and re.search(r"\b(?:a|an|one)\s+(?:[\w-]+\s+)?$", question[: m.start()], _FLAGS)
        ):
            year = int(m.group("dy"))  # "a paper from 2015" is dated 2015, not from 2015 on
            said = Said(year, year, f"a publication from {year}: {year} only", said.words, "in")
        clause = chain(question, m.end("noun") if m.group("noun") else m.start(), m.end(), said, newest)
        if clause is not None:
            found.append(clause)
    return found


def chain(question: str, start: int, end: int, said: Said, newest: int | None) -> Clause | None:
    """The clause with the periods chained to it ("after 2010 and before 2015"); None for a union."""
    clauses = [said]
    while (
        (chained := _CHAINED.match(question, end)) and (more := read(chained, newest)) and not counts(question, chained)
    ):
        clauses.append(more)
        end = chained.end()
    if _EITHER.match(question, end):
        return None  # "before 2000 or after 2010" is two periods, which one range cannot hold
    return Clause(start, end, tuple(clauses))


def _led(question: str, start: int) -> re.Match[str] | None:
    """The period read from the direction or 'around' words right before `start` on ("Since 2010")."""
    pre = _DIRECTION_BEFORE.search(question, 0, start)
    return _TEMPORAL.match(question, pre.start()) if pre else None


def adjectives(question: str, newest: int | None) -> list[Clause]:
    found = []
    for m in _ADJECTIVE.finditer(question):
        said: Said | None
        g, words, start = m.groupdict(), " ".join(m.group(0).split()), m.start()
        if counts(question, m, adjective=True):
            continue
        if g["py"]:
            year = int(g["py"])
            said = (
                Said(None, year - 1, f"pre-{year} is strict: up to {year - 1}", words, "direction")
                if g["pp"].lower() in ("pre", "pré")
                else Said(year + 1, None, f"post-{year} is strict: from {year + 1}", words, "direction")
            )
        elif g["ad"] or g["at"] or g["aw"]:
            said = decade(g["aq"], decade_start(g["ad"], g["at"], g["aw"]), words)
        elif g["ar1"]:
            y1, y2 = sorted((int(g["ar1"]), int(g["ar2"])))
            said = Said(y1, y2, f"{y1}–{y2} inclusive", words, "range")
        elif g["jy"] and (led := _led(question, m.start())):
            said = read(led, newest)  # "Since 2010 papers", "circa 1990 research"
            start = led.start()
        elif g["jy"]:
            said = Said(int(g["jy"]), int(g["jy"]), f"a {g['jy']} publication: {g['jy']} only", words, "in")
        else:
            said = relative(RECENT_YEARS, newest, f"recent: the last {RECENT_YEARS} years", words)
        if said is not None:
            found.append(Clause(start, m.end(), (said,)))
    for m in _FRENCH_RECENT.finditer(question):
        said = relative(RECENT_YEARS, newest, f"recent: the last {RECENT_YEARS} years", m.group("fr"))
        if said is not None:
            found.append(Clause(m.start("fr"), m.end("fr"), (said,)))
    return found


def segments(question: str, newest: int | None) -> list[Clause]:
    """Periods standing alone: opening the question before a comma, in parentheses, after a comma."""
    found = []
    for m in _SEGMENT.finditer(question):
        opener = question[: m.start()].rstrip()[-1:]  # "" at the start of the question
        closer = question[m.end() : m.end() + 1]
        fits = {"": closer in (",", ":", ";", "—"), "(": closer == ")"}.get(
            opener, closer in ("", ",", ";", ":", "?", ".", "!", ")", "—", "-")
        )
        said = read(m, newest)
        if not fits or said is None or counts(question, m):
            continue
        participle = bool(re.search(PARTICIPLE, m.group("lead") or "", _FLAGS))
        after_noun = opener == "," and re.search(rf"\b(?:{NOUN})\s*,\s*$", question[: m.start()], _FLAGS)
        if said.kind in ("bare", "bare-range") and not participle and not (after_noun and said.kind == "bare-range"):
            continue
        if said.kind == "in" and opener == "(" and not participle:
            continue  # "the crisis (in 2008)" dates the crisis
        found.append(Clause(m.start(), m.end(), (said,)))
    return found
