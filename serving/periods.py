"""A publication period written in a question becomes a year filter (DESIGN §6).

Only a year 1900–2099 attached to a publication word counts ("papers published after 2015",
"literature before 2010", "pre-2008 studies"); content years ("the 2008 crisis", "GARCH models
from 1986", "returns from 1990 to 2000") never do. The clause is removed from the text that gets
embedded; the publication noun itself is kept ("papers published after 2015" → "papers").

Bounds, per word:
* strict: before / prior to / earlier than / pre-Y → year_max = Y-1;
  after / later than / more recent than / post-Y → year_min = Y+1;
* inclusive: until / till / up to / through / no later than / not after → year_max = Y;
  since / from / as of / starting / no earlier than / not before → year_min = Y;
  "in Y or earlier" → year_max = Y; "in Y or later" → year_min = Y;
  between Y1 and Y2, from Y1 to Y2, Y1–Y2 → [Y1, Y2]; "published in Y" → [Y, Y];
* relative: in the last / past N years (or decade) → year_min = newest_year - N + 1.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

_NOUN = (r"papers?|publications?|literature|research|stud(?:y|ies)|sources?|articles?|works|preprints?"
         r"|documents?|reports?|references?|books?|surveys?|texts?|vignettes?|notes")
_PARTICIPLE = r"published|written|released|appeared|appearing|dated|issued|authored"
_FILLER = rf"(?:\s+(?:{_PARTICIPLE}|only|exclusively|strictly|mostly|that|which|were|was|are|is|have|been))*"
_YEAR = r"(?<!\d)(?:19|20)\d{2}(?!\d|'?s\b)"
_EVENT = (r"(?!\s*(?:financial\s+|global\s+|subprime\s+|debt\s+|banking\s+)?(?:crisis|crises|crash|recession"
          r"|bubble|meltdown|reform|act|election|shock|collapse|default|panic|pandemic|war)\b)")
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
            "ten": 10, "fifteen": 15, "twenty": 20}
_DIRECTIONS = {  # word → (bound, shift)
    "before": ("max", -1), "prior to": ("max", -1), "earlier than": ("max", -1),
    "until": ("max", 0), "till": ("max", 0), "up to": ("max", 0), "up until": ("max", 0),
    "through": ("max", 0), "no later than": ("max", 0), "not after": ("max", 0),
    "after": ("min", 1), "later than": ("min", 1), "more recent than": ("min", 1),
    "since": ("min", 0), "from": ("min", 0), "as of": ("min", 0), "starting in": ("min", 0),
    "starting from": ("min", 0), "starting": ("min", 0), "no earlier than": ("min", 0),
    "not before": ("min", 0),
}
_DIR_RE = "|".join(sorted((w.replace(" ", r"\s+") for w in _DIRECTIONS), key=len, reverse=True))
_TEMPORAL = (
    rf"(?:(?:(?:between|from|in|during)\s+(?:the\s+years\s+)?)?(?P<r1>{_YEAR})\s*(?:and|to|through|until|-|–|—)\s*"
    rf"(?P<r2>{_YEAR})"
    rf"|(?:in\s+)?(?P<oy>{_YEAR})\s+or\s+(?P<odir>earlier|before|prior|later|after|since)"
    rf"|(?P<dir>{_DIR_RE})\s+(?P<dy>{_YEAR})(?:\s+(?:onwards?|and\s+(?:later|after|beyond)|or\s+later))?"
    rf"|(?:in|during)\s+(?P<ey>{_YEAR})"
    rf"|(?:(?:in|during|over|from|within|of|for)\s+)?the\s+(?:last|past|previous)\s+"
    rf"(?:(?P<rn>\d{{1,2}}|{'|'.join(_NUMBERS)})\s+years|(?P<rdec>decade))"
    rf"){_EVENT}"
)
_ATTACHED_RE = re.compile(
    rf"\b(?:(?P<noun>{_NOUN})|(?P<part>{_PARTICIPLE}))\b(?P<fill>{_FILLER})\s+{_TEMPORAL}", re.IGNORECASE)
_CHAINED_RE = re.compile(rf"\s*,?\s*(?:and|but)(?:\s+(?:{_PARTICIPLE}|only))*\s+{_TEMPORAL}", re.IGNORECASE)
_PREFIX_RE = re.compile(rf"\b(?P<pp>pre|post)[-\s]?(?P<py>{_YEAR}){_EVENT}(?=(?:\s+\w+)?\s+(?:{_NOUN})\b)",
                        re.IGNORECASE)


class Period(BaseModel):
    year_min: int | None = None
    year_max: int | None = None
    clause: str | None = None  # the text removed from the question ("; "-joined when several)
    query: str                 # the question without the clause


def _bounds(m: re.Match, newest_year: int | None, participle: bool) -> tuple[int | None, int | None] | None:
    """(year_min, year_max) said by one temporal match; None when it says nothing usable."""
    g = m.groupdict()
    if g["r1"]:
        y1, y2 = sorted((int(g["r1"]), int(g["r2"])))
        return y1, y2
    if g["oy"]:
        year = int(g["oy"])
        return (None, year) if g["odir"].lower() in ("earlier", "before", "prior") else (year, None)
    if g["dir"]:
        bound, shift = _DIRECTIONS[" ".join(g["dir"].lower().split())]
        year = int(g["dy"]) + shift
        return (None, year) if bound == "max" else (year, None)
    if g["ey"]:  # "in 2019" only dates a publication after a participle ("published in 2019")
        return (int(g["ey"]), int(g["ey"])) if participle else None
    if newest_year is None:
        return None
    years = 10 if g["rdec"] else int(_NUMBERS.get(g["rn"].lower(), g["rn"]))
    return (newest_year - years + 1, None) if years > 0 else None


def _tidy(question: str, spans: list[tuple[int, int]]) -> str:
    text = question
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    text = " ".join(text.split())
    text = re.sub(r"\s+([,.;:?!)])", r"\1", text)
    text = re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", text)
    text = re.sub(r"\(\s*\)", "", text)
    text = text.strip(" ,;:")
    if question.rstrip().endswith("?") and text and text[-1] not in ".?!":
        text += "?"
    return text if re.search(r"\w", text) else question.strip()


def parse_period(question: str, newest_year: int | None) -> Period:
    """Year bounds said by the question, and the question without them."""
    low: list[int] = []
    high: list[int] = []
    spans: list[tuple[int, int]] = []
    for m in _ATTACHED_RE.finditer(question):
        participle = bool(m.group("part")) or bool(re.search(_PARTICIPLE, m.group("fill") or "", re.I))
        said = _bounds(m, newest_year, participle)
        if said is None:
            continue
        start, end = (m.end("noun") if m.group("noun") else m.start()), m.end()
        found = [said]
        while (chained := _CHAINED_RE.match(question, end)) and (more := _bounds(chained, newest_year, True)):
            found.append(more)
            end = chained.end()
        for lo, hi in found:
            low += [lo] if lo is not None else []
            high += [hi] if hi is not None else []
        spans.append((start, end))
    for m in _PREFIX_RE.finditer(question):
        if any(s <= m.start() < e for s, e in spans):
            continue
        year = int(m.group("py"))
        (high if m.group("pp").lower() == "pre" else low).append(year - 1 if m.group("pp").lower() == "pre" else year + 1)
        spans.append((m.start(), m.end()))
    year_min, year_max = (max(low) if low else None), (min(high) if high else None)
    if not spans or (year_min is not None and year_max is not None and year_min > year_max):
        return Period(query=question.strip())
    clause = "; ".join(" ".join(question[s:e].split()) for s, e in sorted(spans))
    return Period(year_min=year_min, year_max=year_max, clause=clause, query=_tidy(question, spans))


class AppliedPeriod(BaseModel):
    year_min: int | None
    year_max: int | None
    query: str                       # the text to embed
    parsed: Period                   # what the question said
    source_min: str | None           # "caller" | "question" | None
    source_max: str | None
    note: str | None                 # a sentence for the response, None when no bound applies


def apply_period(question: str, year_min: int | None, year_max: int | None,
                 newest_year: int | None) -> AppliedPeriod:
    """Effective bounds: the caller's explicit bounds win, the question's fill the other side."""
    if year_min is not None and year_max is not None and year_min > year_max:
        raise ValueError(f"year_min {year_min} is after year_max {year_max}")
    parsed = parse_period(question, newest_year)
    lo = year_min if year_min is not None else parsed.year_min
    hi = year_max if year_max is not None else parsed.year_max
    if lo is not None and hi is not None and lo > hi:  # a question bound contradicts the caller's
        lo, hi = year_min, year_max
    source_min = None if lo is None else ("caller" if year_min is not None else "question")
    source_max = None if hi is None else ("caller" if year_max is not None else "question")
    parts = [f"{name}={value} ({source})" for name, value, source in
             (("year_min", lo, source_min), ("year_max", hi, source_max)) if value is not None]
    note = None
    if parts:
        note = "period applied: " + ", ".join(parts)
        if parsed.clause:
            note += f"; read from the question: {parsed.clause!r}"
            ignored = [n for n, said, used in (("year_min", parsed.year_min, lo), ("year_max", parsed.year_max, hi))
                       if said is not None and said != used]
            if ignored:
                note += f" ({', '.join(ignored)} from the question overridden by the caller)"
    return AppliedPeriod(year_min=lo, year_max=hi, query=parsed.query if parsed.clause else question.strip(),
                         parsed=parsed, source_min=source_min, source_max=source_max, note=note)
