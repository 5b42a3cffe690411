"""The prose words of an author's source (LaTeX/Sweave .Rnw, R Markdown .Rmd): what a faithful
parse of the typeset PDF must contain. Code chunks, mathematics, the preamble, comments, the
bibliography and command names are removed; the arguments of text commands (\\emph{...},
\\section{...}, \\pkg{...}) stay, those of reference commands (\\cite, \\ref, \\label, \\url) go.

The extraction is deliberately simple (no macro expansion), so it is itself noisy by a few percent
on macro-heavy sources: a word that only a user macro produces is missed, never invented.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

SOURCE_SUFFIXES = (".Rnw", ".Rmd", ".rnw", ".rmd")
WORD = re.compile(r"[A-Za-z]{2,}")

_DROP_ENVS = (
    "equation",
    "align",
    "alignat",
    "eqnarray",
    "gather",
    "multline",
    "displaymath",
    "math",
    "flalign",
    "split",
    "array",
    "verbatim",
    "Verbatim",
    "Sinput",
    "Soutput",
    "Schunk",
    "Scode",
    "Code",
    "CodeChunk",
    "CodeInput",
    "CodeOutput",
    "lstlisting",
    "thebibliography",
    "tabular",
    "tabularx",
    "longtable",
    "knitrout",
    "kframe",
    "alltt",
    "tikzpicture",
    "comment",
)
_ENV = re.compile(r"\\begin\{(" + "|".join(_DROP_ENVS) + r")\*?\}.*?\\end\{\1\*?\}", re.S)
_SWEAVE_CHUNK = re.compile(r"^<<.*?>>=.*?^@", re.S | re.M)
_MD_CHUNK = re.compile(r"^\s*(```|~~~).*?^\s*\1", re.S | re.M)
_COMMENT = re.compile(r"(?<!\\)%.*")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$|\\\[.*?\\\]|\\\(.*?\\\)", re.S)
# Inline mathematics, with the letters glued to it ('the $i$th row': the reader sees 'ith').
_INLINE_MATH = re.compile(r"(?<!\\)\$[^$]+?(?<!\\)\$[A-Za-z]*", re.S)
_SEXPR = re.compile(r"\\Sexpr\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}")
_INLINE_R = re.compile(r"`r [^`]*`")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MD_CITE = re.compile(r"\[?-?@[\w:.-]+\]?")
# Commands whose arguments are not prose (keys, labels, addresses, files, lengths, counters,
# colours, page styles, listing and verbatim settings, macro bodies); the name ends the command
# ('\\references' is no '\\ref', '\\definecolor' no '\\def'), its optional and mandatory
# arguments come in any order ('\\begin{figure}[htbp]').
_DROP_ARGS = re.compile(
    r"\\(?:\w*cite\w*|ref|eqref|autoref|cref|Cref|pageref|label|url|href|include\w*|input|inputencoding|"
    r"bibliography\w*|usepackage|documentclass|newcommand|renewcommand|providecommand|DeclareMathOperator|def|"
    r"setlength|setcounter|addtolength|addtocounter|newcounter|stepcounter|refstepcounter|value|arabic|"
    r"vspace|hspace|newenvironment|renewenvironment|pagestyle|thispagestyle|addcontentsline|"
    r"definecolor|colorlet|color|setkeys|fontsize|captionsetup|geometry|fvset|"
    r"\w*VerbatimEnvironment|lst\w+|SweaveOpts|opts_chunk|VignetteIndexEntry|VignetteEngine|VignetteKeyword|"
    r"hypersetup|graphicspath|DeclareGraphicsExtensions|newtheorem|bibitem|begin|end)(?![A-Za-z@])\*?"
    r"(?:\s*\[[^\]]*\]|\s*\{[^{}]*(?:\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}[^{}]*)*\})*"
)
_COMMAND = re.compile(r"\\[A-Za-z@]+\*?|\\.")
# A length ('0mm', '.5\\textwidth' once the command is gone): typeset as space, never as words.
_DIMENSION = re.compile(r"(?<![A-Za-z])-?(?:\d+\.?\d*|\.\d+)(?:pt|mm|cm|in|em|ex|bp|pc|dd|cc|sp)(?![A-Za-z])")
# An initial set apart by a command ('\\textbf{S}tructural'): the typeset word is whole.
_SPLIT_INITIAL = re.compile(r"(?<![A-Za-z])([A-Za-z])\s*\}+(?=[a-z]{2})")
# The YAML headers that open an R Markdown file (more than one, HTML comments between them): only
# the values of their title, subtitle, author and abstract are typeset.
_YAML = re.compile(r"(\s*(?:<!--.*?-->\s*)*)---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_YAML_KEY = re.compile(r"([\w-]+):(.*)")
_YAML_TYPESET = ("title", "subtitle", "author", "abstract")
_YAML_NESTED_KEY = re.compile(r"^[\s-]*[\w-]+:(?!//)")
_HTML_SCRIPT = re.compile(r"<(script|style)\b.*?</\1>", re.S | re.I)
# A TeX accent on a letter ('Universit\\"at', 'Fran\\c{c}ois') is typeset as the accented letter.
_ACCENT = re.compile(r"""\\([`'^"~=.]|[cvuH](?![A-Za-z]))\s*(?:\{([A-Za-z])\}|([A-Za-z]))""")
_COMBINING = {
    "`": "\u0300",
    "'": "\u0301",
    "^": "\u0302",
    "~": "\u0303",
    "=": "\u0304",
    "u": "\u0306",
    ".": "\u0307",
    '"': "\u0308",
    "H": "\u030b",
    "v": "\u030c",
    "c": "\u0327",
}
_MD_EMPHASIS = re.compile(r"\*+")  # '**T**ool' is typeset 'Tool'


def _body(text: str) -> str:
    """The document body of a LaTeX source: between \\begin{document} and \\end{document}, the
    bibliography and appendix-free part of it (the preamble's title/abstract live in \\title{}
    and \\Abstract{} there, which the typeset PDF shows, so those arguments are kept)."""
    start = text.find("\\begin{document}")
    end = text.find("\\end{document}")
    front = " ".join(
        re.findall(
            r"\\(?:title|Abstract|abstract|Plaintitle|Keywords)\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}", text[: max(start, 0)]
        )
    )
    body = text[start + len("\\begin{document}") : end if end > start else None] if start >= 0 else text
    return front + "\n" + body


def _front_matter(text: str) -> str:
    """`text` with its opening YAML headers reduced to the typeset values (_YAML_TYPESET), each key's
    value with its continuation lines."""
    kept: list[str] = []
    pos = 0
    while m := _YAML.match(text, pos):
        kept.append(m.group(1))
        typeset = False
        for line in m.group(2).splitlines():
            if key := _YAML_KEY.match(line):
                typeset = key.group(1) in _YAML_TYPESET
                line = key.group(2)
            if typeset:  # an author's nested keys ('  - name: ...', '    email: ...') are not typeset
                kept.append(_YAML_NESTED_KEY.sub("", line))
        pos = m.end()
    return "\n".join(kept) + "\n" + text[pos:]


def prose_text(text: str, markdown: bool) -> str:
    """The source with everything but prose removed (whitespace not normalised)."""
    if markdown:
        text = _front_matter(text)
        text = _MD_EMPHASIS.sub("", text)
        text = _MD_CHUNK.sub(" ", text)
        text = _HTML_COMMENT.sub(" ", text)
        text = _HTML_SCRIPT.sub(" ", text)
        text = _INLINE_R.sub(" ", text)
        text = _MD_LINK.sub(r"\1", text)
        text = _MD_CITE.sub(" ", text)
    else:
        text = _SWEAVE_CHUNK.sub(" ", text)
        text = _COMMENT.sub("", text)
        text = _body(text)
    text = _SEXPR.sub(" ", text)
    text = _ENV.sub(" ", text)
    text = _DISPLAY_MATH.sub(" ", text)
    text = _INLINE_MATH.sub(" ", text)
    if markdown:
        text = _INLINE_CODE.sub(lambda m: m.group(0)[1:-1], text)
    text = _ACCENT.sub(lambda m: unicodedata.normalize("NFC", (m[2] or m[3]) + _COMBINING[m[1]]), text)
    text = _DROP_ARGS.sub(" ", text)
    text = _DIMENSION.sub(" ", text)
    text = _COMMAND.sub(" ", text)
    text = _SPLIT_INITIAL.sub(r"\1", text)
    return text.replace("{", " ").replace("}", " ")


def source_file(folder: Path) -> Path | None:
    """The vignette source in a pdf_sources/<stem>/ folder, or None (DESCRIPTION only)."""
    found = sorted(p for p in Path(folder).iterdir() if p.suffix in SOURCE_SUFFIXES)
    return found[0] if found else None


def source_words(path: Path) -> list[str]:
    """The prose words (two letters or more, case kept) of one source file, in order."""
    path = Path(path)
    text = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
    return WORD.findall(prose_text(text, markdown=path.suffix.lower() == ".rmd"))
