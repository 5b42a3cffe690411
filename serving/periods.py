"""A publication period written in a question becomes a year filter (DESIGN §6).

Only a year 1900–2099 attached to a publication word counts ("papers published after 2015",
"literature before 2010", "a 2011 study", "recent work"); content years ("the 2008 crisis",
"GARCH models from 1986", "returns from 1990 to 2000") never do. The clause is removed from the
text that gets embedded; the publication noun itself is kept ("papers published after 2015" →
"papers"). Every bound says which words it came from and whether it is strict or inclusive.

Bounds (all years inclusive once applied):
* strict: before / prior to / earlier than / pre-Y → year_max = Y-1;
  after / later than / more recent than / post-Y → year_min = Y+1;
* inclusive: until / till / up to / through / no later than / not after → year_max = Y;
  since / from / as of / starting / no earlier than / not before (onwards) → year_min = Y;
  "in Y or earlier" → year_max = Y; "in Y or later" → year_min = Y;
  between Y1 and Y2, from Y1 to Y2, Y1–Y2 → [Y1, Y2]; "published in Y", "a Y study" → [Y, Y];
* approximate: around / circa / about Y → [Y-2, Y+2];
  decades: the 2000s → [2000, 2009]; early → first four years, mid → [D+4, D+6], late → last three;
* relative to the corpus's newest year N: in the last / past K years (or decade) → year_min = N-K+1;
  recent work, in recent years → year_min = N-4 (the last five years).
A question that opens with a period set off by a comma ("Since 2015, how have factor models …",
"In the 2000s, who …") asks about the library's work of that period; elsewhere a bare year stays
content ("How did volatility behave before 2010?").
"""

from __future__ import annotations

import re

from pydantic import BaseModel

_NOUN = (r"papers?|publications?|literature|research|stud(?:y|ies)|sources?|articles?|works?|preprints?"
         r"|documents?|reports?|references?|books?|surveys?|texts?|vignettes?|notes|slides?|(?:slide\s+)?decks?"
         r"|talks?|presentations?|lectures?|guidance|chapters?|thes[ie]s|manuals?|tutorials?|writings?")
_PARTICIPLE = r"published|written|released|appeared|appearing|dated|issued|authored|presented"
_FILLER = rf"(?:\s+(?:{_PARTICIPLE}|only|exclusively|strictly|mostly|that|which|were|was|are|is|have|been))*"
_YEAR = r"(?<!\d)(?:19|20)\d{2}(?!\d|'?s\b)"
_DECADE = r"(?:(?P<{q}>early|mid|late)[-\s]?)?(?P<{d}>(?:19|20)\d0)'?s\b"
_EVENT = (r"(?!\s*(?:financial\s+|global\s+|subprime\s+|debt\s+|banking\s+)?(?:crisis|crises|crash|recession"
          r"|bubble|meltdown|reform|act|election|shock|collapse|default|panic|pandemic|war)\b)")
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
            "ten": 10, "fifteen": 15, "twenty": 20}
RECENT_YEARS = 5  # "recent work": the last five years of the corpus
AROUND_YEARS = 2  # "around 2010": two years either side
_DIRECTIONS = {  # word → (bound, shift)
    "before": ("max", -1), "prior to": ("max", -1), "earlier than": ("max", -1),
    "until": ("max", 0), "till": ("max", 0), "up to": ("max", 0), "up until": ("max", 0),
    "through": ("max", 0), "no later than": ("max", 0), "not after": ("max", 0),
    "after": ("min", 1), "later than": ("min", 1), "more recent than": ("min", 1),
    "since": ("min", 0), "from": ("min", 0), "as of": ("min", 0), "starting in": ("min", 0),
    "starting from": ("min", 0), "starting": ("min", 0), "no earlier than": ("min", 0),
    "not before": ("min", 0), "onwards from": ("min", 0),
}
_DIR_RE = "|".join(sorted((w.replace(" ", r"\s+") for w in _DIRECTIONS), key=len, reverse=True))
_TEMPORAL = (
    rf"(?:(?:(?:between|from|in|during)\s+(?:the\s+years\s+)?)?(?P<r1>{_YEAR})\s*(?:and|to|through|until|-|–|—)\s*"
    rf"(?P<r2>{_YEAR})"
    rf"|(?:in\s+)?(?P<oy>{_YEAR})\s+or\s+(?P<odir>earlier|before|prior|later|after|since)"
    rf"|(?P<dir>{_DIR_RE})\s+(?P<dy>{_YEAR})(?:\s+(?:onwards?|and\s+(?:later|after|beyond)|or\s+later))?"
    rf"|(?:(?:from|in|during|of)\s+)?(?:(?:around|circa|c\.|about|approximately|roughly)\s+)(?P<ay>{_YEAR})"
    rf"|(?:(?:from|in|during|of|over)\s+)?(?:the\s+)?{_DECADE.format(q='tq', d='td')}"
    rf"|(?:in|during)\s+(?P<ey>{_YEAR})"
    rf"|(?:(?:in|during|over|from|within|of|for)\s+)?the\s+(?:last|past|previous)\s+"
    rf"(?:(?P<rn>\d{{1,2}}|{'|'.join(_NUMBERS)})\s+years|(?P<rdec>decade))"
    rf"|(?:in|during|over|from|of)\s+(?P<ry>recent)\s+years"
    rf"){_EVENT}"
)
_ATTACHED_RE = re.compile(
    rf"\b(?:(?P<noun>{_NOUN})|(?P<part>{_PARTICIPLE}))\b(?P<fill>{_FILLER})\s+{_TEMPORAL}", re.IGNORECASE)
_CHAINED_RE = re.compile(rf"\s*,?\s*(?:and|but)(?:\s+(?:{_PARTICIPLE}|only))*\s+{_TEMPORAL}", re.IGNORECASE)
# A period used as an adjective of a publication word: pre-2008 studies, a 2011 study, early-2010s papers,
# recent work (at most one other word between: "a 2011 empirical study").
_ADJECTIVE_RE = re.compile(
    rf"\b(?:(?P<pp>pre|post)[-\s]?(?P<py>{_YEAR})|{_DECADE.format(q='aq', d='ad')}|(?P<jy>{_YEAR})"
    rf"|(?:more\s+)?(?P<recent>recent|latest|newest))"
    rf"{_EVENT}(?=(?:[-\s]+[\w-]+)?\s+(?:{_NOUN})\b)", re.IGNORECASE)
_LEADING_RE = re.compile(rf"^\s*{_TEMPORAL}\s*,", re.IGNORECASE)

Said = tuple[int | None, int | None, str]  # (year_min, year_max, how the words were read)


class Period(BaseModel):
    year_min: int | None = None
    year_max: int | None = None
    clause: str | None = None  # the text removed from the question ("; "-joined when several)
    rules: list[str] = []      # one line per clause: its words, the bounds they became, and why
    query: str                 # the question without the clause


def _decade(quarter: str | None, decade: str) -> Said:
    start = int(decade)
    part = (quarter or "").lower()
    lo, hi = {"early": (start, start + 3), "mid": (start + 4, start + 6),
              "late": (start + 7, start + 9)}.get(part, (start, start + 9))
    return lo, hi, f"{part + ' ' if part else ''}{decade}s: {lo}–{hi} inclusive"


def _relative(years: int, newest_year: int | None, why: str) -> Said | None:
    if newest_year is None or years <= 0:
        return None
    return newest_year - years + 1, None, f"{why}: from {newest_year - years + 1} (newest document {newest_year})"


def _bounds(m: re.Match, newest_year: int | None, participle: bool) -> Said | None:
    """(year_min, year_max, rule) said by one temporal match; None when it says nothing usable."""
    g = m.groupdict()
    if g.get("r1"):
        y1, y2 = sorted((int(g["r1"]), int(g["r2"])))
        return y1, y2, f"{y1}–{y2} inclusive"
    if g.get("oy"):
        year = int(g["oy"])
        earlier = g["odir"].lower() in ("earlier", "before", "prior")
        return (None, year, f"up to {year} inclusive") if earlier else (year, None, f"from {year} inclusive")
    if g.get("dir"):
        word = " ".join(g["dir"].lower().split())
        bound, shift = _DIRECTIONS[word]
        year = int(g["dy"]) + shift
        kind = "strict" if shift else "inclusive"
        rule = f"'{word}' is {kind}: {'up to' if bound == 'max' else 'from'} {year}"
        return (None, year, rule) if bound == "max" else (year, None, rule)
    if g.get("ay"):
        year = int(g["ay"])
        return year - AROUND_YEARS, year + AROUND_YEARS, f"around {year}: ±{AROUND_YEARS} years inclusive"
    if g.get("td"):
        return _decade(g.get("tq"), g["td"])
    if g.get("ey"):  # "in 2019" only dates a publication after a participle ("published in 2019")
        return (int(g["ey"]), int(g["ey"]), f"in {g['ey']}") if participle else None
    if g.get("ry"):
        return _relative(RECENT_YEARS, newest_year, f"recent: the last {RECENT_YEARS} years")
    if g.get("rn") or g.get("rdec"):
        years = 10 if g.get("rdec") else int(_NUMBERS.get(g["rn"].lower(), g["rn"]))
        return _relative(years, newest_year, f"the last {years} years")
    return None


def _adjective_bounds(m: re.Match, newest_year: int | None) -> Said | None:
    g = m.groupdict()
    if g["py"]:
        year = int(g["py"])
        if g["pp"].lower() == "pre":
            return None, year - 1, f"pre-{year} is strict: up to {year - 1}"
        return year + 1, None, f"post-{year} is strict: from {year + 1}"
    if g["ad"]:
        return _decade(g["aq"], g["ad"])
    if g["jy"]:
        return int(g["jy"]), int(g["jy"]), f"a {g['jy']} publication: {g['jy']} only"
    return _relative(RECENT_YEARS, newest_year, f"recent: the last {RECENT_YEARS} years")


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


def _found(question: str, newest_year: int | None) -> list[tuple[int, int, list[Said]]]:
    """(start, end, what it said) of every period clause in the question."""
    found: list[tuple[int, int, list[Said]]] = []
    for m in _ATTACHED_RE.finditer(question):
        participle = bool(m.group("part")) or bool(re.search(_PARTICIPLE, m.group("fill") or "", re.I))
        said = _bounds(m, newest_year, participle)
        if said is None:
            continue
        start, end = (m.end("noun") if m.group("noun") else m.start()), m.end()
        clauses = [said]
        while (chained := _CHAINED_RE.match(question, end)) and (more := _bounds(chained, newest_year, True)):
            clauses.append(more)
            end = chained.end()
        found.append((start, end, clauses))
    for m in _ADJECTIVE_RE.finditer(question):
        if not any(s <= m.start() < e for s, e, _ in found) and (said := _adjective_bounds(m, newest_year)):
            found.append((m.start(), m.end(), [said]))
    leading = _LEADING_RE.match(question)
    if (leading and not any(s < leading.end() for s, _, _ in found)
            and (said := _bounds(leading, newest_year, True))):
        found.append((leading.start(), leading.end(), [said]))
    return sorted(found)


def parse_period(question: str, newest_year: int | None) -> Period:
    """Year bounds said by the question, and the question without them."""
    found = _found(question, newest_year)
    low = [lo for _, _, said in found for lo, _, _ in said if lo is not None]
    high = [hi for _, _, said in found for _, hi, _ in said if hi is not None]
    year_min, year_max = (max(low) if low else None), (min(high) if high else None)
    if not found or (year_min is not None and year_max is not None and year_min > year_max):
        return Period(query=question.strip())
    spans = [(s, e) for s, e, _ in found]
    words = [" ".join(question[s:e].strip(" ,").split()) for s, e in spans]
    rules = [f"“{w}” → {'; '.join(r for _, _, r in said)}" for w, (_, _, said) in zip(words, found)]
    return Period(year_min=year_min, year_max=year_max, clause="; ".join(words), rules=rules,
                  query=_tidy(question, spans))
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
            note += f"; read from the question: {'; '.join(parsed.rules)}"
            ignored = [n for n, said, used in (("year_min", parsed.year_min, lo), ("year_max", parsed.year_max, hi))
                       if said is not None and said != used]
            if ignored:
                note += f" ({', '.join(ignored)} from the question overridden by the caller)"
    return AppliedPeriod(year_min=lo, year_max=hi, query=parsed.query if parsed.clause else question.strip(),
                         parsed=parsed, source_min=source_min, source_max=source_max, note=note)
