"""Rules beside the vocabulary: defined acronyms, author-year citations, catalogue author names.

* Defined acronyms, "conditional value at risk (CVaR)": the long form is found with the
  Schwartz & Hearst (2003) matching of the short form's characters, right to left, into the words
  before the parenthesis (the first character must start a word).
* Citations, "Engle (1982)", "Boudt et al. (2010)", "Storn and Price (1997)", "(Carl et al., 2010;
  Yollin 2009)", and reference-list names "R. F. Engle", "J.-C. Richard": each surname becomes a
  person (the surname alone, so a citation and a reference entry meet on one entity).
* Catalogue authors: full names from the catalogue found in the text; a cited surname that belongs
  to exactly one catalogue author is resolved to that author's full name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import regex

from corpus.text.safe_cut import scan

_SURNAME = r"(?:(?:van|von|de|der|den|du|da|di|del|le|la)\s+)?\p{Lu}(?:['’]\p{Lu})?\p{Ll}[\p{L}'’]*(?:-\p{Lu}\p{Ll}+)*"
_YEAR = r"(?:1[89]\d\d|20\d\d)[a-z]?"
_NAMES = rf"(?P<names>{_SURNAME}(?:\s*,\s*{_SURNAME})*(?:\s*,?\s+(?:and|&)\s+{_SURNAME})?)"
_ETAL = r"(?:\s+et\s+al\.?)?"
_NARRATIVE = regex.compile(
    rf"(?<![\p{{L}}\\]){_NAMES}{_ETAL}\s*\(\s*{_YEAR}(?:\s*[,;]\s*{_YEAR})*"
    r"(?:,\s*(?:p|pp|ch|chap|sec)\.?\s*[\d–-]+)?\s*\)"
)
_PARENTHETICAL_PART = regex.compile(
    rf"\s*(?:(?:see|e\.g\.|cf\.|also)[,]?\s+)*{_NAMES}{_ETAL},?\s+{_YEAR}"
    rf"(?:\s*,\s*{_YEAR})*"
)
_PARENS = re.compile(r"\(([^()]{6,300})\)")
_SPLIT_NAMES = regex.compile(r"\s*,\s*(?:and\s+|&\s+)?|\s+(?:and|&)\s+")
_POSSESSIVE = re.compile(r"['’]s?$")
# Capitalised words that start sentences or name document parts, never a cited surname.
STOP_WORDS = frozenset(
    """a about above after again also although an and another as at because before
being below between both but by can chapter consider each equation example figure fig finally first
following for from further furthermore hence here however if in indeed instead it its lecture let
likewise many may model moreover most next note now of often on one only or other our package page
part per recall recently second section see similarly since so some such table than that the their
then there these this those thus to under unlike until using version volume vol we what when where
whereas which while with within without yet january february march april may june july august
september october november december appendix proceedings journal press university edition series
review working paper papers report jr computing engineering finance economics statistics conference
workshop meeting society institute foundation team core group inc ltd llc corporation introduction
conclusion conclusions background results discussion references abstract summary overview notation
proof proofs acknowledgements acknowledgments data methods theorem lemma definition remark
financ econ econom stat statist comput appl anal math bus manag oper res multivar wiley springer
elsevier leuven""".split()
)


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str


_CONSOLE_LINE = re.compile(r"^(?:#>|R>>?|>|\+)\s.*$", re.MULTILINE)


def code_spans(text: str) -> list[tuple[int, int]]:
    """Fenced code blocks (as docs/DESIGN.md §4 finds them), inline `code` and R console lines (`> x`,
    `+ y`, `#> z`, common in PDF vignettes, which have no fences): no mentions inside."""
    spans = [(s, e) for s, e, kind in scan(text).spans if kind == "fence"]
    spans += [(m.start(), m.end()) for m in re.finditer(r"`[^`\n]+`", text)]
    spans += [(m.start(), m.end()) for m in _CONSOLE_LINE.finditer(text)]
    return spans


def in_identifier(text: str, start: int, end: int) -> bool:
    """True when text[start:end] is part of a dotted identifier (`solve.QP`, `wts.GMV`, `HAC.Sig`)."""
    before = start >= 2 and text[start - 1] == "." and text[start - 2].isalnum()
    after = end + 1 < len(text) and text[end] == "." and text[end + 1].isalnum()
    return before or after


# -- defined acronyms -------------------------------------------------------------------------
_DEFINITION = re.compile(r"\((?P<short>[A-Za-z][A-Za-z0-9&/-]{1,9})\)")
_CLAUSE_BREAK = re.compile(r"[.,;:!?]\s|\n\s*\n|[()\[\]=|]")


@dataclass(frozen=True)
class AcronymDefinition:
    long: Span
    short: Span


def defined_acronyms(text: str) -> list[AcronymDefinition]:
    """Every "long form (SHORT)" where SHORT has two capitals or more and its characters match
    word-initially into the words just before the parenthesis."""
    found = []
    for m in _DEFINITION.finditer(text):
        short = m.group("short")
        letters = short[:-1] if short.endswith("s") and short[:-1].isupper() else short
        if sum(c.isupper() for c in letters) < 2:
            continue
        window_start = max(0, m.start() - 200)
        before = text[window_start : m.start()]
        breaks = list(_CLAUSE_BREAK.finditer(before))
        if breaks:
            window_start, before = window_start + breaks[-1].end(), before[breaks[-1].end() :]
        words = before.split()
        max_words = min(len(letters) + 5, 2 * len(letters))
        candidate = " ".join(words[-max_words:]) if words else ""
        long_form = _best_long_form(letters, candidate)
        if (
            not long_form
            or len(long_form) <= len(short)
            or short.lower() in long_form.lower().split()
            or long_form.split()[0].lower() in ("a", "an", "the")
        ):
            continue
        start = _locate_tail(text, window_start, m.start(), long_form)
        if start is None:
            continue
        end = m.start()
        while end > start and text[end - 1].isspace():
            end -= 1
        found.append(
            AcronymDefinition(Span(start, end, text[start:end]), Span(m.start("short"), m.end("short"), short))
        )
    return found


def _best_long_form(short: str, long: str) -> str | None:
    """Schwartz & Hearst: match SHORT's alphanumerics right to left; the first must start a word."""
    s, i = len(short) - 1, len(long) - 1
    while s >= 0:
        c = short[s].lower()
        if not c.isalnum():
            s -= 1
            continue
        while i >= 0 and (long[i].lower() != c or (s == 0 and i > 0 and long[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return None
        i, s = i - 1, s - 1
    return long[long.rfind(" ", 0, i + 1) + 1 :].strip()


def _locate_tail(text: str, lo: int, hi: int, long_form: str) -> int | None:
    """Start offset in text[lo:hi] of `long_form` written with any whitespace, ending at hi."""
    words = long_form.split()
    pattern = r"\s+".join(re.escape(w) for w in words) + r"\s*$"
    m = re.search(pattern, text[lo:hi])
    return lo + m.start() if m else None


# -- citations ----------------------------------------------------------------------------------
def citations(text: str) -> list[Span]:
    """Surnames cited as `Surname (Year)`, `Surname et al. (Year)`, `A and B (Year)` or inside
    `(Surname, Year; …)`; one span per surname."""
    spans = [s for m in _NARRATIVE.finditer(text) for s in _surnames(text, m.start("names"), m.group("names"))]
    for paren in _PARENS.finditer(text):
        offset = paren.start(1)
        for part in paren.group(1).split(";"):
            m = _PARENTHETICAL_PART.match(part)
            if m:
                spans += _surnames(text, offset + m.start("names"), m.group("names"))
            offset += len(part) + 1
    unique = {(s.start, s.end): s for s in spans}
    return [unique[k] for k in sorted(unique)]


def _surnames(text: str, start: int, names: str) -> list[Span]:
    out, cursor = [], 0
    for piece in _SPLIT_NAMES.split(names):
        at = names.find(piece, cursor)
        cursor = at + len(piece)
        piece = _POSSESSIVE.sub("", piece)
        words = piece.lower().split()
        if words and words[0] not in STOP_WORDS and words[-1] not in STOP_WORDS:
            out.append(Span(start + at, start + at + len(piece), piece))
    return out


# initials, an optional middle name, the surname, then what follows a name in a reference list
_INITIALLED = regex.compile(
    rf"(?<![\p{{L}}.])(?P<initials>(?:\p{{Lu}}\.\s?(?:-\s?)?)+)\s*(?:{_SURNAME}\s+)?"
    rf"(?P<surname>{_SURNAME})(?=\s*[,.;:(]|\s+(?:and|&)\s|\s*$)"
)


def initialled_names(text: str) -> list[Span]:
    """Surnames written after initials, as in reference lists: "R. F. Engle", "J.-C. Richard"."""
    out = []
    for m in _INITIALLED.finditer(text):
        surname = m.group("surname")
        initials = m.group("initials").replace(" ", "")
        if surname.lower() in STOP_WORDS or initials in ("U.S.", "U.K.", "E.U."):
            continue
        out.append(Span(m.start("surname"), m.end("surname"), surname))
    return out


# -- catalogue authors --------------------------------------------------------------------------
_PARTICLES = {"van", "von", "de", "der", "den", "du", "da", "di", "del", "le", "la"}
_NAME_TOKEN = regex.compile(r"^(?:\p{Lu}\.?|\p{Lu}[\p{L}'’.-]+)$")


def person_names(raw: list[str]) -> list[str]:
    """Catalogue author strings split into plausible person names ("A; B", "A and B")."""
    out = []
    for item in raw:
        item = re.sub(r"\bet\s+al\b\.?|[()]|\"[^\"]*\"|“[^”]*”|\b(?:Dr|Prof)\b\.?", " ", item)
        for piece in re.split(r";|\s+and\s+|\s+&\s+", item):
            parts = piece.split(",")
            # "A B, C D" lists two people; "Smith, John" is one name written surname first (skipped)
            for part in parts if all(len(p.split()) >= 2 for p in parts) else [piece]:
                tokens = part.split()
                if (
                    2 <= len(tokens) <= 5
                    and not tokens[-1].endswith(".")
                    and all(_NAME_TOKEN.match(t) or t in _PARTICLES for t in tokens)
                ):
                    out.append(" ".join(tokens))
    return out


class AuthorIndex:
    """Catalogue persons: grouped by (first initial, surname); the longest written name is canonical."""

    def __init__(self, authors: dict[str, list[str]]):
        groups: dict[tuple[str, str], set[str]] = {}
        for names in authors.values():
            for name in person_names(names):
                tokens = name.split()
                groups.setdefault((tokens[0][0].lower(), tokens[-1].casefold()), set()).add(name)
        self.canonical: dict[str, str] = {}
        by_surname: dict[str, set[str]] = {}
        for (_, surname), forms in groups.items():
            best = max(forms, key=lambda f: (len(f), f))
            for form in forms:
                self.canonical[form] = best
            by_surname.setdefault(surname, set()).add(best)
        self.by_surname = {s: next(iter(v)) for s, v in by_surname.items() if len(v) == 1}
        longest_first = sorted(self.canonical, key=len, reverse=True)
        alternatives = "|".join(r"\s+".join(regex.escape(t) for t in f.split()) for f in longest_first)
        self._pattern = regex.compile(r"(?<!\p{L})(?:" + alternatives + r")(?!\p{L})") if longest_first else None

    def resolve_surname(self, surname: str) -> str:
        return self.by_surname.get(surname.split()[-1].casefold(), surname)

    def find(self, text: str) -> list[tuple[Span, str]]:
        """Catalogue names written in `text`, with their canonical form."""
        if self._pattern is None:
            return []
        return [
            (Span(m.start(), m.end(), m.group()), self.canonical[" ".join(m.group().split())])
            for m in self._pattern.finditer(text)
        ]


# -- typing a defined long form that the vocabulary does not know ------------------------------
_HEAD_TYPES = {
    "measure": "ratio measure error deviation variance volatility loss statistic coefficient criterion "
    "drawdown shortfall beta alpha return returns premium spread turnover",
    "method": "model models test method estimator estimation regression filter algorithm analysis "
    "optimization optimisation programming procedure sampler simulation search evolution "
    "accepting heuristic approach framework package estimates estimate",
    "organization": "exchange commission association institute bank board university school foundation "
    "corporation agency network committee authority bureau",
    "financial_instrument": "option options bond bonds swap swaps note notes futures fund funds security "
    "securities contract contracts certificate trust",
    "dataset": "data database dataset",
    "market_concept": "hypothesis bias effect distribution theorem process risk book impact order",
}
HEAD_NOUN_TYPES = {word: kind for kind, words in _HEAD_TYPES.items() for word in words.split()}


def head_noun_type(long_form: str) -> str | None:
    """Entity type suggested by the head noun of a long form (its last word before "of", "for",
    "with", "in", "under"), or None when it suggests nothing."""
    head = re.split(r"\s(?:of|for|with|in|under)\s", clean_name(long_form), maxsplit=1)[0]
    words = re.findall(r"[A-Za-z]+", head)
    return HEAD_NOUN_TYPES.get(words[-1].lower()) if words else None


def clean_name(text: str) -> str:
    """A name as written, with line-break soft hyphens resolved and whitespace collapsed."""
    text = regex.sub(r"[\u00ad\ufffe]\s*(?=\p{Ll})", "", text)
    return " ".join(regex.sub(r"[\u00ad\ufffe]\s*", "-", text).split())
