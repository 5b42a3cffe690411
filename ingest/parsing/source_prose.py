"""The prose words of an author's source (LaTeX/Sweave .Rnw, R Markdown .Rmd): what a faithful
parse of the typeset PDF must contain. Code chunks, mathematics, the preamble, comments, the
bibliography and command names are removed; the arguments of text commands (\\emph{...},
\\section{...}, \\pkg{...}) stay, those of reference commands (\\cite, \\ref, \\label, \\url) go.

The extraction is deliberately simple (no macro expansion), so it is itself noisy by a few percent
on macro-heavy sources: a word that only a user macro produces is missed, never invented.
"""

from __future__ import annotations

import re
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
_INLINE_MATH = re.compile(r"(?<!\\)\$[^$]+?(?<!\\)\$", re.S)
_SEXPR = re.compile(r"\\Sexpr\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}")
_INLINE_R = re.compile(r"`r [^`]*`")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MD_CITE = re.compile(r"\[?-?@[\w:.-]+\]?")
# Commands whose arguments are not prose (keys, labels, addresses, files, lengths, macro bodies).
_DROP_ARGS = re.compile(
    r"\\(?:cite\w*|ref|eqref|autoref|cref|Cref|pageref|label|url|href|include\w*|input|bibliography\w*|"
    r"usepackage|documentclass|newcommand|renewcommand|providecommand|DeclareMathOperator|def|"
    r"setlength|setcounter|addtolength|vspace|hspace|newenvironment|renewenvironment|"
    r"SweaveOpts|opts_chunk|VignetteIndexEntry|VignetteEngine|VignetteKeyword|hypersetup|"
    r"graphicspath|DeclareGraphicsExtensions|newtheorem|bibitem|begin|end)\*?"
    r"(?:\s*\[[^\]]*\])*(?:\s*\{[^{}]*(?:\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}[^{}]*)*\})*"
)
_COMMAND = re.compile(r"\\[A-Za-z@]+\*?|\\.")
_YAML = re.compile(r"\A---\n.*?\n---\n", re.S)


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


def prose_text(text: str, markdown: bool) -> str:
    """The source with everything but prose removed (whitespace not normalised)."""
    if markdown:
        text = _YAML.sub("", text)
        text = _MD_CHUNK.sub(" ", text)
        text = _HTML_COMMENT.sub(" ", text)
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
    text = _DROP_ARGS.sub(" ", text)
    text = _COMMAND.sub(" ", text)
    return text.replace("{", " ").replace("}", " ")


def source_file(folder: Path) -> Path | None:
    """The vignette source in a pdf_sources/<stem>/ folder, or None (DESCRIPTION only)."""
    found = sorted(p for p in Path(folder).iterdir() if p.suffix in SOURCE_SUFFIXES)
    return found[0] if found else None


def source_words(path: Path) -> list[str]:
    """The prose words (two letters or more, case kept) of one source file, in order."""
    path = Path(path)
    text = path.read_text(encoding="utf-8", errors="replace")
    return WORD.findall(prose_text(text, markdown=path.suffix.lower() == ".rmd"))
