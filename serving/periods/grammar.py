"""One grammar of period expressions, and what each says as year bounds (docs/DESIGN.md §6).

`temporal()` is the pattern of one expression ("before 2010", "2010 or earlier", "between 2010 and
2015", "the early 2010s", "in the last 5 years", "avant 2010", …); `read()` turns its match into
bounds, each carrying the words that set it. Where an expression counts as a publication period
(after a publication word, opening the question, in parentheses) is serving/periods/context.py's concern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from serving.periods.words import (
    AROUND,
    AROUND_YEARS,
    DIRECTION_RE,
    EVENT,
    NUMBER_RE,
    NUMBERS,
    OR_EARLIER,
    OR_LATER,
    QUARTER_RE,
    QUARTERS,
    RECENT_YEARS,
    WRITTEN_DECADES,
    direction,
)

YEAR = r"(?<![\w$€£¥#§.,/:=×*^@'’])(?:19|20)\d{2}(?![\w%]|[.,]\d|['’]s\b)"
DECADE = (
    rf"(?:(?P<{{q}}>{QUARTER_RE})[-\s]?)?(?:(?P<{{d}}>(?:19|20)\d0)['’]?s|['’]?(?P<{{t}}>[1-9]0)['’]?s"
    rf"|(?P<{{w}}>{'|'.join(WRITTEN_DECADES)}))\b"
)
_INCL = r"inclusive(?:ly)?|included|inclus(?:e|es)?|exclusive(?:ly)?|excluded|exclus"
_SUFFIX_WORDS = (
    rf"onwards?|forwards?|on(?=\s*(?:[,;:?.!)]|$))|and\s+(?:later|after|beyond|onwards?|since)"
    rf"|or\s+(?:later|after|since)(?!\s+(?:19|20)\d\d)|to\s+(?:date|now|the\s+present|today)"
    rf"|until\s+(?:now|today|the\s+present)|et\s+après|{_INCL}"
)
_SUFFIX = rf"\s*(?:\((?:{_SUFFIX_WORDS})\)|(?:{_SUFFIX_WORDS}))"


def temporal() -> str:
    """The pattern of one period expression; alternatives are tried in order, most specific first."""
    return (
        rf"(?P<t>(?:(?:(?P<rlead>between|from|in|during|over|for|within|covering|spanning|entre|de|du|sur)\s+)?"
        rf"(?:the\s+(?:years|period)\s+|les\s+années\s+)?(?P<r1>{YEAR})\s*"
        rf"(?P<rsep>and|to|through|thru|until|till|up\s+to|or|-|–|—|et|à|au|ou)\s*(?:the\s+end\s+of\s+)?"
        rf"(?P<r2>{YEAR}|(?<=[-–—])\d{{2}}(?![\w%]|[.,]\d))(?:\s*(?:\((?P<rincl>{_INCL})\)|(?P<rincl2>{_INCL})))?"
        rf"|(?:(?:in|from|of|during|dated|en|de|dès)\s+)?(?P<oy>{YEAR})\s*,?\s+(?:or|and|ou|et)\s+"
        rf"(?:(?P<oearly>{OR_EARLIER})|(?P<olate>{OR_LATER}))\b(?!\s+(?:than\s+)?(?:19|20)\d\d)"
        rf"|(?P<dir>{DIRECTION_RE})(?:\s+|(?<=pre)-|(?<=post)-)"
        rf"(?:(?:the\s+)?(?:year|(?P<dend>end|close)\s+of|(?P<dstart>start|beginning)\s+of)\s+|l['’]année\s+)?"
        rf"(?:(?P<dy>{YEAR})(?P<dsuf>{_SUFFIX})?|(?:the\s+)?" + DECADE.format(q="xq", d="xd", t="xt", w="xw") + ")"
        rf"|(?:(?:from|in|of|during|dating\s+from|dated)\s+)?(?:{AROUND})\s*(?P<ay>{YEAR})"
        rf"|(?:(?:from|in|during|of|over|throughout|across|dans|pendant|durant)\s+)?(?:the\s+)?"
        + DECADE.format(q="dq", d="dd", t="dt", w="dw")
        + rf"|(?:(?:au|à\s+la|en|dans|pendant|durant)\s+)?(?:(?P<fq>début|milieu|fin)\s+des\s+|(?:les|des)\s+)"
        rf"années\s+"
        rf"(?P<fd>(?:19|20)\d0)(?!\d)"
        rf"|(?:(?:in|during|over|from|within|of|for|throughout|across)\s+)?(?:the\s+)?"
        rf"(?:(?:last|past|previous|preceding)\s+(?:(?P<rn>\d{{1,2}}|{NUMBER_RE})\s+)?(?P<ru>years?|yrs?|decades?)\b"
        rf"|recent\s+(?P<rrec>years|times))"
        rf"|(?:(?:au\s+cours\s+)?(?:des|les|ces)\s+)(?:(?P<fn>\d{{1,2}}|{NUMBER_RE})\s+)?dernières\s+années"
        rf"|(?:(?:au\s+cours\s+de|dans|sur|pendant)\s+)?la\s+(?P<fdec>dernière\s+décennie|décennie\s+passée)"
        rf"|(?P<recently>recently|récemment)"
        rf"|(?:in|during|throughout|over|en|dans|for|of)\s+(?:(?:the\s+)?year\s+|l['’]année\s+"
        rf"|(?:early|mid|late)[-\s]|(?:the\s+)?(?:course|first\s+half|second\s+half)\s+of\s+)?(?P<iy>{YEAR})"
        rf"|(?:(?:in|from|dated)\s+)?(?P<sy>{YEAR})\s*(?:onwards?|forwards?|on(?=\s*(?:[,;:?.!)]|$))|and\s+beyond"
        rf"|to\s+(?:date|now|the\s+present|today))"
        rf"|(?P<by>{YEAR})"
        rf")){EVENT}"
    )


@dataclass(frozen=True)
class Said:
    """What one expression says: bounds (inclusive), the rule in words, the words that set them."""

    year_min: int | None
    year_max: int | None
    rule: str
    words: str
    kind: str  # range | or | direction | around | decade | relative | in | bare


def decade(quarter: str | None, start: int, words: str) -> Said:
    part = " ".join((quarter or "").lower().split())
    lo, hi = QUARTERS.get(part, (0, 9))
    return Said(
        start + lo,
        start + hi,
        f"{part + ' ' if part else ''}{start}s: {start + lo}–{start + hi} inclusive",
        words,
        "decade",
    )


def relative(years: int, newest: int | None, why: str, words: str) -> Said | None:
    if newest is None or years <= 0:
        return None
    return Said(
        newest - years + 1, None, f"{why}: from {newest - years + 1} (newest document {newest})", words, "relative"
    )


def _number(text: str | None, default: int) -> int:
    if not text:
        return default
    text = " ".join(text.lower().split())
    return int(text) if text.isdigit() else NUMBERS[text]


def decade_start(full: str | None, tens: str | None, written: str | None) -> int:
    """First year of a decade written "2010s", "'90s" (1930s–2020s) or "nineties"."""
    if full:
        return int(full)
    if tens:
        return 1900 + int(tens) if int(tens) >= 30 else 2000 + int(tens)
    if written is None:
        raise ValueError("a decade is written as its year, its tens or its word")
    return WRITTEN_DECADES[written.lower()]


def _direction_decade(word: str, bound: str, shift: int, span: Said) -> Said:
    """'since the 2000s' → from 2000; 'before the 2000s' → up to 1999; 'after the 2000s' → from 2010."""
    first, last = span.year_min, span.year_max
    if first is None or last is None:
        raise ValueError(f"not a decade: {span.rule}")
    if bound == "max":
        year = first - 1 if shift else last
        return Said(None, year, f"'{word}' {span.rule}: up to {year}", span.words, "direction")
    year = last + 1 if shift else first
    return Said(year, None, f"'{word}' {span.rule}: from {year}", span.words, "direction")


def read(m: re.Match, newest: int | None) -> Said | None:
    """The bounds one `temporal()` match says; None when it says nothing usable."""
    g, words = m.groupdict(), " ".join(m.group("t").split())
    if g.get("r1"):
        y1, r2 = int(g["r1"]), g["r2"]
        y2 = int(r2) if len(r2) == 4 else y1 // 100 * 100 + int(r2)
        if y2 < y1 and len(r2) == 2:
            return None
        y1, y2 = sorted((y1, y2))
        if (g.get("rincl") or g.get("rincl2") or "").lower().startswith("exclu"):
            return Said(y1 + 1, y2 - 1, f"{y1}–{y2} exclusive: {y1 + 1}–{y2 - 1}", words, "range")
        return Said(y1, y2, f"{y1}–{y2} inclusive", words, "range" if g.get("rlead") else "bare-range")
    if g.get("oy"):
        year = int(g["oy"])
        if g.get("oearly"):
            return Said(None, year, f"up to {year} inclusive", words, "or")
        return Said(year, None, f"from {year} inclusive", words, "or")
    if g.get("dir"):
        word = " ".join(g["dir"].lower().split())
        bound, shift = direction(word)
        if not g.get("dy") and word == "from":  # "research from the 2000s" is of the 2000s
            return decade(g.get("xq"), decade_start(g.get("xd"), g.get("xt"), g.get("xw")), words)
        if not g.get("dy"):
            return _direction_decade(
                word, bound, shift, decade(g.get("xq"), decade_start(g.get("xd"), g.get("xt"), g.get("xw")), words)
            )
        suffix = (g.get("dsuf") or "").lower()
        if "inclu" in suffix or (g.get("dend") and bound == "max") or (g.get("dstart") and bound == "min"):
            shift = 0
        elif "exclu" in suffix or (g.get("dstart") and bound == "max") or (g.get("dend") and bound == "min"):
            shift = -1 if bound == "max" else 1
        year = int(g["dy"]) + shift
        kind = "strict" if shift else "inclusive"
        rule = f"'{word}' is {kind}: {'up to' if bound == 'max' else 'from'} {year}"
        return (
            Said(None, year, rule, words, "direction") if bound == "max" else Said(year, None, rule, words, "direction")
        )
    if g.get("ay"):
        year = int(g["ay"])
        return Said(
            year - AROUND_YEARS, year + AROUND_YEARS, f"around {year}: ±{AROUND_YEARS} years inclusive", words, "around"
        )
    if g.get("dd") or g.get("dt") or g.get("dw"):
        return decade(g.get("dq"), decade_start(g.get("dd"), g.get("dt"), g.get("dw")), words)
    if g.get("fd"):
        return decade(g.get("fq"), int(g["fd"]), words)
    if g.get("ru"):
        unit = 10 if g["ru"].lower().startswith("decade") else 1
        plural = g["ru"].lower().endswith("s")
        if not g.get("rn") and plural:
            return relative(RECENT_YEARS, newest, f"recent: the last {RECENT_YEARS} years", words)
        years = _number(g.get("rn"), 1) * unit
        return relative(years, newest, f"the last {years} years", words)
    if g.get("fn") is not None or "dernières" in words.lower():
        if not g.get("fn"):
            return relative(RECENT_YEARS, newest, f"recent: the last {RECENT_YEARS} years", words)
        years = _number(g["fn"], RECENT_YEARS)
        return relative(years, newest, f"the last {years} years", words)
    if g.get("fdec"):
        return relative(10, newest, "the last 10 years", words)
    if g.get("rrec") or g.get("recently"):
        return relative(RECENT_YEARS, newest, f"recent: the last {RECENT_YEARS} years", words)
    if g.get("sy"):
        return Said(int(g["sy"]), None, f"from {g['sy']} inclusive", words, "or")
    if g.get("iy"):
        return Said(int(g["iy"]), int(g["iy"]), f"in {g['iy']}", words, "in")
    if g.get("by"):
        return Said(int(g["by"]), int(g["by"]), f"in {g['by']}", words, "bare")
    return None
