"""Measured figures live in docs/, not in the code: a comment or docstring of an installed package
keeps the why and names the decision (a docs/ entry), never the number that settled it, which
goes stale the day the code changes."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

from test_import_graph import PACKAGES, REPO

_NUMBER = r"(?<![\w.])[+-−~≈]?\d[\d,]*(?:\.\d+)?"
FIGURE = re.compile(
    "|".join(
        (
            _NUMBER + r"\s?(?:ms|min|seconds?|minutes?|hours?|[KMG]i?B|%)(?![\w'])",  # time, size, share
            _NUMBER + r"(?:\s|(?<=\.\d)|(?<=\.\d\d))s(?![\w'])",  # seconds ("2 s", "0.4s"; not "top 10s")
            r"\[[+-−]?\d*\.\d+,\s*[+-−]?\d*\.\d+\]",  # a confidence interval
            r"(?:nDCG|recall|MRR|MAP|precision)@\d+\s*(?:of\s*)?[+-−]?\d?\.\d+",  # a metric's value
            _NUMBER + r"\s?[x×]\s+(?:faster|slower|less|more|fewer|smaller|larger|cheaper)",  # a speed-up
            r"(?<![\w.])[+−]\d?\.\d{2,}",  # a signed difference
        )
    )
)


def commentary(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment and docstring of one module."""
    source = path.read_text(encoding="utf-8")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = ast.get_docstring(node, clean=False)
            if docstring:
                yield node.body[0].lineno, docstring


def figures_in(paths: list[Path]) -> list[str]:
    return [
        f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path.name}:{line}: {match.group(0)!r}"
        for path in paths
        for line, text in commentary(path)
        for match in FIGURE.finditer(re.sub(r"`[^`]*`", "", text))  # code in backticks is an example
    ]


def test_the_pattern_finds_figures_and_leaves_settings_and_formulas(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""Opens in 2.55 s (0.4s warm); int8 cut p50 by 15 %; tokenised `12%` -> `12`; top 10s."""\n'
        "# hybrid beat dense (+0.098 nDCG@10 [+0.088, +0.109]); 2.5x faster on AMX\n"
        "# recall@10 0.992 at 1.7 M points, 4.1 GB on disk\n"
        "# score = weight + 0.01 × mentions; at most 3 hits of 300 characters (MATCH_WINDOW)\n"
        "x = 1  # ef 1024 / 8 × oversampling (hnsw_search_settings)\n",
        encoding="utf-8",
    )
    found = [line.split(": ", 1)[1] for line in figures_in([sample])]
    assert found == [
        "'+0.098'",
        "'[+0.088, +0.109]'",
        "'2.5x faster'",
        "'recall@10 0.992'",
        "'4.1 GB'",
        "'2.55 s'",
        "'0.4s'",
        "'15 %'",
    ]


def test_no_measured_figure_in_a_comment_or_docstring_of_an_installed_package():
    paths = [path for package in PACKAGES for path in sorted((REPO / package).rglob("*.py"))]
    assert paths
    found = figures_in(paths)
    assert not found, "figures belong in docs/measurements.md, not in the code:\n" + "\n".join(found)
