"""Title, authors and year of a vignette from its own declarations, each with where it came from.

Per field, the first candidate that gives a value wins:

* title: the source's own (LaTeX: \\Plaintitle, \\title, hyperref's pdftitle=, %\\VignetteIndexEntry;
  R Markdown: the front matter's title:, then %\\VignetteIndexEntry), then the index entry R recorded
  (an R.rsp `.asis` file beside the PDF, the package's doc/index.html), then DESCRIPTION's Title;
* authors: LaTeX \\Plainauthor, \\author, pdfauthor= / R Markdown author:, then DESCRIPTION's Author
  (its [aut] people where roles are given);
* year: a year in LaTeX \\date or \\Year / R Markdown date:, then DESCRIPTION's Date,
  Date/Publication, Packaged.

A title is never made from a file name: a one-word candidate equal to the PDF's or the source's
file stem or joined like a file name ('Rcpp-FAQ'), or one ending in .pdf/.Rnw/.Rmd/.tex, is passed
over. Values holding code that only R
would evaluate (\\Sexpr{}, `r ...`) are passed over.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

YEAR_RE = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
_NOT_A_NAME_RE = re.compile(
    r"\b(universit\w*|department|institut\w*|school|college|laborator\w*|centre|center|inc|ltd|gmbh|research|"
    r"faculty|fakult\w*|dipartimento|hospital|division|"
    r"foundation|corporation|project|team|group|contributors|others)\b|@|https?:|www\.",
    re.IGNORECASE,
)
_AUTHOR_SPLIT_RE = re.compile(r"\s*(?:;|,|&|\band\b)\s*")
_R_CODE_RE = re.compile(r"\\Sexpr|`r\s|!r\s|\{r\b")


@dataclass
class Metadata:
    title: str = ""
    authors: list[str] = field(default_factory=list)
    year: str = ""
    title_from: str = ""
    authors_from: str = ""
    year_from: str = ""

    def offer(self, what: str, value: str | list[str] | None, source: str) -> None:
        """Take `value` for field `what` unless that field already has one."""
        if not value or getattr(self, what):
            return
        setattr(self, what, value)
        setattr(self, f"{what}_from", source)


# ---- LaTeX --------------------------------------------------------------------------------------

_ACCENTS = {
    '"': "\u0308",
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "c": "\u0327",
    "v": "\u030c",
    "u": "\u0306",
    "H": "\u030b",
    "r": "\u030a",
    "k": "\u0328",
}
_LETTERS = {"ss": "ß", "o": "ø", "O": "Ø", "aa": "å", "AA": "Å", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ"}
_LETTERS |= {
    "l": "ł",
    "L": "Ł",
    "i": "i",
    "j": "j",
    "LaTeX": "LaTeX",
    "TeX": "TeX",
    "R": "R",
    "ldots": "...",
    "dots": "...",
}
_LETTERS |= {"textendash": "–", "textemdash": "—", "textquoteright": "'", "textquoteleft": "'", "slash": "/"}
# commands whose argument is not part of the text (footnotes, affiliations, spacing, links' targets)
_DROP_ARGUMENT = {
    "thanks", "footnote", "footnotetext", "vspace", "hspace", "label", "inst", "email", "url", "includegraphics",
    "affil", "affiliation", "address", "orcid", "ref", "cite", "fnref", "titlenote", "tnoteref", "footnotemark",
    "setlength", "color", "textcolor", "raisebox", "selectlanguage", "foreignlanguage",
}  # fmt: skip
_FIRST_DROPPED = {"href", "textcolor", "foreignlanguage"}  # \href{url}{text}: the text stays


def braced(text: str, start: int) -> tuple[str, int] | None:
    """The balanced {…} group opening at `start` (its inside, the index after it), or None."""
    if start >= len(text) or text[start] != "{":
        return None
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        depth += c == "{"
        depth -= c == "}"
        i += 1
        if depth == 0:
            return text[start + 1 : i - 1], i
    return None


def _skip_space_and_options(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n*":
        i += 1
    if i < len(text) and text[i] == "[":
        close = text.find("]", i)
        i = close + 1 if close > 0 else i
        while i < len(text) and text[i] in " \t\n":
            i += 1
    return i


def command_arguments(tex: str, name: str) -> list[str]:
    """The first braced argument of each `\\name` (an optional [..] before it skipped)."""
    found = []
    for match in re.finditer(r"\\" + re.escape(name) + r"(?![A-Za-z])", tex):
        group = braced(tex, _skip_space_and_options(tex, match.end()))
        if group is not None:
            found.append(group[0])
    return found


def key_value(tex: str, key: str) -> list[str]:
    """Values of `key={…}` or `key=value` in option lists (hyperref's pdftitle=, pdfauthor=)."""
    found = []
    for match in re.finditer(r"(?<![A-Za-z])" + key + r"\s*=\s*", tex):
        group = braced(tex, match.end())
        if group is not None:
            found.append(group[0])
        else:
            plain = re.match(r"[^,\]\n}]+", tex[match.end() :])
            if plain:
                found.append(plain.group(0))
    return found


def strip_comments(tex: str) -> str:
    return re.sub(r"(?<!\\)%.*", "", tex)


def latex_to_text(tex: str) -> str:
    """Plain text of a short LaTeX fragment: accents composed, formatting commands unwrapped, footnotes,
    \\thanks and affiliations' commands dropped, `\\\\` as a line break."""
    out: list[str] = []
    i = 0
    while i < len(tex):
        c = tex[i]
        if c == "\\" and i + 1 < len(tex):
            nxt = tex[i + 1]
            if nxt == "\\":
                out.append("\n")
                i = _skip_space_and_options(tex, i + 2) if tex[i + 2 : i + 3] == "[" else i + 2
                continue
            match = re.match(r"[A-Za-z]+", tex[i + 1 :])
            name = match.group(0) if match else nxt
            i += 1 + len(name)
            if name in _ACCENTS:
                i, letter = _accent_target(tex, i, letter_command=name.isalpha())
                out.append(unicodedata.normalize("NFC", letter + _ACCENTS[name]) if letter else "")
            elif name in _LETTERS:
                out.append(_LETTERS[name])
                if tex[i : i + 2] == "{}":
                    i += 2
            elif name in _DROP_ARGUMENT or name in _FIRST_DROPPED:
                j = _skip_space_and_options(tex, i)
                group = braced(tex, j)
                i = group[1] if group else i
            elif not name.isalpha():
                out.append({"&": "&", "%": "%", "_": "_", "$": "$", "#": "#", " ": " ", ",": " "}.get(name, ""))
            elif name in ("and", "And", "AND"):
                out.append(" and ")
            continue
        if c in "{}$":
            i += 1
            continue
        if c in "^_":  # a superscript or subscript (footnote marks: Hothorn$^1$, $^\dag$): dropped with its argument
            group = braced(tex, i + 1)
            command = re.match(r"\\[A-Za-z]+", tex[i + 1 :])
            i = group[1] if group else i + 1 + (len(command.group(0)) if command else 1)
            continue
        if c == "~" or c.isspace():  # a line break is `\\`; the source's own are spaces
            out.append(" ")
        elif tex.startswith("---", i):
            out.append("—")
            i += 2
        elif tex.startswith("--", i):
            out.append("–")
            i += 1
        elif tex.startswith("``", i) or tex.startswith("''", i):
            out.append('"')
            i += 1
        else:
            out.append(c)
        i += 1
    return "\n".join(" ".join(line.split()) for line in "".join(out).split("\n")).strip(" ")


def _accent_target(tex: str, i: int, letter_command: bool) -> tuple[int, str]:
    """After an accent command: (index after its argument, the base letter)."""
    if letter_command:
        while i < len(tex) and tex[i] == " ":
            i += 1
    group = braced(tex, i)
    if group is not None:
        inner = latex_to_text(group[0]) if group[0].startswith("\\") else group[0]
        return group[1], inner[:1]
    if tex.startswith("\\i", i) or tex.startswith("\\j", i):
        return i + 2, tex[i + 1]
    return i + 1, tex[i : i + 1]


def one_line(text: str) -> str:
    return " ".join(text.split())


def latex_authors(tex: str) -> list[str]:
    """Names from an \\author{} argument: people split at \\and (\\And, \\AND) or at spacing
    between names (\\hspace, \\quad, \\hfill), then at commas or 'and'; each person's lines after the
    first (affiliation, address) dropped."""
    people = re.split(r"\\(?:and|And|AND|quad|qquad|hfill)(?![A-Za-z])|\\hspace\*?\{[^}]*\}", tex)
    names: list[str] = []
    for person in people:
        lines = [line for line in latex_to_text(person).split("\n") if line.strip()] or [""]  # a logo's line: none
        kept = lines[0]
        for line in lines[1:]:  # a list of names broken over lines goes on ('…, \\ and X'); an affiliation does not
            if re.search(r"(,|\band|&)\s*$", kept) or re.match(r"\s*(and\b|&|,)", line):
                kept = f"{kept} {line}"
            else:
                break
        names += split_names(kept)
    return names


_CREDITS_RE = re.compile(
    r"[,;]?\s*\b(with\b|based on\b|derived from\b|contributions? (from|by)\b|for this version\b|et al\b"
    r"|(?:and\s+)?others\b).*$",
    re.IGNORECASE | re.DOTALL,
)
_SUFFIXES = {"Jr", "Jr.", "Sr", "Sr.", "II", "III", "IV"}


def split_names(text: str) -> list[str]:
    """People's names from a plain author string: split at ';', ',', '&', ' and '; e-mail addresses,
    bracketed roles, parenthesised notes, footnote marks and honorifics removed; credits after the
    first sentence or after 'with …', 'based on …' dropped; a name is two to eight words, no
    institution ('Development Team', 'University of …') and no lone word."""
    text = re.sub(r"<[^>]*>|\[[^\]]*\]|\([^)]*\)|\^[^^]*\^", " ", text)
    text = re.sub(r"\b(?:Dr|Prof|Professor)\.?\s+(?=[A-Z])|^\s*by\s+", "", text, flags=re.IGNORECASE)
    text = _CREDITS_RE.sub("", re.split(r"(?<=[a-z]{2})\.\s+(?=[A-Z])", text, maxsplit=1)[0])
    names: list[str] = []
    # an affiliation goes whole ('Institute for Analysis and Stochastics' is not split at its 'and')
    segments = [seg for seg in re.split(r"\s*[;,]\s*", text) if not _NOT_A_NAME_RE.search(seg)]
    for part in (p for seg in segments for p in _AUTHOR_SPLIT_RE.split(seg)):
        name = one_line(re.sub(r"\^?\d+", " ", part).strip(" .*\t\n"))
        if name in _SUFFIXES or f"{name}." in _SUFFIXES:
            if names:
                names[-1] = f"{names[-1]} {name.rstrip('.')}."
            continue
        if 2 <= len(name.split()) <= 8 and not _NOT_A_NAME_RE.search(name):
            names.append(name)
    return names


def latex_metadata(tex: str, meta: Metadata, stems: set[str]) -> None:
    """Offer a LaTeX vignette's declarations (see the module's table)."""
    entries = re.findall(r"^[ \t]*%+[ \t]*\\VignetteIndexEntry\{(.*)\}[ \t]*$", tex, re.MULTILINE)
    body = strip_comments(tex)
    for source, values in (
        ("\\Plaintitle", command_arguments(body, "Plaintitle")),
        ("\\title", command_arguments(body, "title")),
        ("pdftitle", key_value(body, "pdftitle")),
        ("\\VignetteIndexEntry", entries),
    ):
        for value in values:
            if not _R_CODE_RE.search(value):  # 'Version \Sexpr{...}': this candidate is passed over whole
                meta.offer("title", usable_title(latex_to_text(value), stems), source)
    for source, values in (
        ("\\Plainauthor", command_arguments(body, "Plainauthor")),
        ("\\author", command_arguments(body, "author")),
        ("pdfauthor", key_value(body, "pdfauthor")),
    ):
        for value in values:
            if not _R_CODE_RE.search(value):
                names = split_names(latex_to_text(value)) if source != "\\author" else latex_authors(value)
                meta.offer("authors", names, source)
    for source, values in (("\\date", command_arguments(body, "date")), ("\\Year", command_arguments(body, "Year"))):
        for value in values:
            if not _R_CODE_RE.search(value):
                meta.offer("year", first_year(value), source)


def usable_title(text: str | None, stems: set[str]) -> str | None:
    """A title, or None for what is no title: empty, R code, a file name, one word equal to the file's
    stem or joined like a file name by '-', '_' or '.' (a declared title that reads as a phrase is
    kept even where the file is named after it)."""
    if not text:
        return None
    title = one_line(text).strip(" :")
    if not title or _R_CODE_RE.search(title) or sum(ch.isalpha() for ch in title) < 3:
        return None
    if re.search(r"\.(pdf|rnw|rmd|rtex|tex)$", title, re.IGNORECASE):
        return None  # a file's name
    if " " not in title and (_normal(title) in {_normal(stem) for stem in stems} or re.search(r"[-_.]", title)):
        return None  # one word that is the file's stem, or reads as a file name ('Rcpp-FAQ', 'zoo_intro')
    return title


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", text).lower().split())


def first_year(text: str | None) -> str | None:
    match = YEAR_RE.search(text or "")
    return match.group(1) if match else None


# ---- R Markdown ---------------------------------------------------------------------------------


def front_matter(text: str) -> str | None:
    """The YAML block between a leading '---' line and the next '---' or '...' line."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            return "\n".join(lines[1:index])
    return None


def read_yaml(block: str) -> dict[str, object]:
    """The front matter's top-level keys: with PyYAML where it is installed and parses the block,
    else `simple_yaml` (enough for title/author/date)."""
    try:
        import yaml

        loaded = yaml.safe_load(block)
        if isinstance(loaded, dict):
            return {str(k): v for k, v in loaded.items()}
    except Exception:  # noqa: BLE001 - PyYAML absent, or an R expression YAML cannot read: the simple reader
        pass
    return simple_yaml(block)


def simple_yaml(block: str) -> dict[str, object]:
    """Top-level `key: value` pairs, a `key:` followed by `- item` / `- name: X` lines (a list), or by
    indented lines (folded text); quotes removed. Not YAML: what title/author/date need of it."""
    result: dict[str, object] = {}
    key = None
    for line in block.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        top = re.match(r"^([A-Za-z_][\w-]*):\s*(.*)$", line)
        if top:
            key, value = top.group(1), top.group(2).strip()
            result[key] = _unquote(value) if value not in ("", ">", "|", ">-", "|-") else ""
            continue
        if key is None:
            continue
        item = re.match(r"^\s+-\s*(?:name:\s*)?(.*)$", line)
        if item:
            current = result.get(key)
            items = current if isinstance(current, list) else []
            items.append(_unquote(item.group(1).strip()))
            result[key] = items
        elif isinstance(result.get(key), str) and not re.match(r"^\s+[\w-]+:", line):
            result[key] = f"{result[key]} {_unquote(line.strip())}".strip()
    return result


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _markdown_text(text: str) -> str:
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # [text](link)
    text = re.sub(r"[*`]|\^[^^]*\^", "", text)
    return latex_to_text(text) if "\\" in text else one_line(text)


def _yaml_names(value: object) -> list[str]:
    if isinstance(value, str):
        return [] if _R_CODE_RE.search(value) else split_names(_markdown_text(value))
    if isinstance(value, list):
        return [name for item in value for name in _yaml_names(item)]
    if isinstance(value, dict) and "name" in value:
        return _yaml_names(value["name"])
    return []


def rmarkdown_metadata(text: str, meta: Metadata, stems: set[str]) -> None:
    """Offer an R Markdown vignette's front matter (see the module's table)."""
    block = front_matter(text)
    fields = read_yaml(block) if block is not None else {}
    title = fields.get("title")
    if isinstance(title, str) and not _R_CODE_RE.search(title):
        meta.offer("title", usable_title(_markdown_text(title), stems), "yaml title")
    entries = re.findall(r"%+\s*\\VignetteIndexEntry\{(.*)\}", text)
    for entry in entries:
        meta.offer("title", usable_title(latex_to_text(entry), stems), "\\VignetteIndexEntry")
    meta.offer("authors", _yaml_names(fields.get("author")), "yaml author")
    date = fields.get("date")
    if date is not None and not _R_CODE_RE.search(str(date)):
        meta.offer("year", first_year(str(date)), "yaml date")


def source_metadata(source: Path, text: str, meta: Metadata, stems: set[str]) -> None:
    if source.suffix.lower() in (".rmd", ".rmarkdown"):
        rmarkdown_metadata(text, meta, stems)
    else:
        latex_metadata(text, meta, stems)


# ---- what R itself recorded: .asis entries, doc/index.html, DESCRIPTION ----------------------------


def asis_title(text: str) -> str | None:
    """The %\\VignetteIndexEntry of an R.rsp 'asis' vignette's .asis file (the PDF is shipped as is)."""
    match = re.search(r"\\VignetteIndexEntry\{(.*)\}", text)
    return latex_to_text(match.group(1)) if match else None


def index_titles(index_html: str) -> dict[str, str]:
    """PDF file name -> the title R's doc/index.html lists for it (the vignette's \\VignetteIndexEntry)."""
    titles = {}
    for row in re.findall(r"<tr>(.*?)</tr>", index_html, re.DOTALL):
        link = re.search(r'href="[^"]*?([^/"]+\.pdf)"', row)
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", row)
        texts = [one_line(html.unescape(cell)) for cell in cells if cell.strip()]
        if link and texts:
            titles[link.group(1)] = texts[0]
    return titles


def description_authors(author: str) -> list[str]:
    """People of a DESCRIPTION `Author:` field: those with an [aut] role where roles are given
    (else [cre]), else every name; ORCID links, e-mails and roles removed."""
    entries = _top_level_split(author)
    with_roles = [(entry, re.search(r"\[([^\]]*)\]", entry)) for entry in entries]
    if any(roles for _, roles in with_roles):
        for wanted in ("aut", "cre"):
            chosen = [e for e, roles in with_roles if roles and wanted in re.split(r"\W+", roles.group(1))]
            if chosen:
                return [name for entry in chosen for name in split_names(entry)]
        return []
    return split_names(author)


def _top_level_split(text: str) -> list[str]:
    """Split at commas outside (), [] and <>."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        depth += ch in "([<"
        depth -= ch in ")]>"
        if ch == "," and depth <= 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]


def description_metadata(description: dict[str, str], meta: Metadata, stems: set[str]) -> None:
    """The package's DESCRIPTION as the last resort for each field."""
    meta.offer("title", usable_title(description.get("Title"), stems), "DESCRIPTION Title")
    meta.offer("authors", description_authors(description.get("Author", "")), "DESCRIPTION Author")
    for name in ("Date", "Date/Publication", "Packaged"):
        meta.offer("year", first_year(description.get(name)), f"DESCRIPTION {name}")
