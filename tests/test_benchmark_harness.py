"""benchmarks/harness.py is the one frame of every benchmark: each script builds its parser there
(so each takes --json and --out), reports through it (one JSON shape) and keeps no timing,
percentile or memory helper of its own; none reads a private field of the project's objects."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = REPO / "benchmarks"
# Modules other scripts import, with no command line of their own (servers the benchmarks start
# are run by them, never by hand).
HELPERS = {
    "harness",
    "host",
    "wire_client",
    "timed_server",
    "profiled_server",
    "serving_profile",
    "scale_indexes",
    "scale_clone",
}
SCRIPTS = sorted(p for p in BENCHMARKS.glob("*.py") if p.stem not in HELPERS)
ALL = sorted(BENCHMARKS.glob("*.py"))
# What only the harness defines: a script's own copy is the duplication the harness removed.
HARNESS_ONLY = {"timed", "cpu_hog", "stage_timer", "rss_mb", "peak_rss_mb", "pct", "summary_ms"}
HARNESS_WORDS = ("percentile", "quantile", "rss")


@pytest.fixture(scope="module")
def harness():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location("benchmark_harness", BENCHMARKS / "harness.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(BENCHMARKS))


def _tree(script: Path) -> ast.AST:
    return ast.parse(script.read_text(encoding="utf-8"), filename=str(script))


def _calls(tree: ast.AST) -> set[str]:
    """`harness.x` and bare `x` names called anywhere in the script."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                names.add(f"{func.value.id}.{func.attr}")
            elif isinstance(func, ast.Name):
                names.add(func.id)
    return names


def test_the_scripts_are_found():
    assert len(SCRIPTS) >= 20 and BENCHMARKS / "graph_precision.py" in SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_every_script_builds_its_parser_and_report_through_the_harness(script):
    tree = _tree(script)
    calls = _calls(tree)
    assert "harness.parser" in calls, f"{script.name}: build the parser with harness.parser(__file__, __doc__)"
    assert "harness.emit" in calls, f"{script.name}: report through harness.emit(args, figures, lines)"
    assert "argparse.ArgumentParser" not in calls and "ArgumentParser" not in calls
    own_options = [
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "add_argument"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    ]
    assert not {"--json", "--out", "--hog"} & set(own_options), f"{script.name}: the harness owns these options"


@pytest.mark.parametrize("script", ALL, ids=[s.stem for s in ALL])
def test_no_script_keeps_a_helper_the_harness_owns(script):
    if script.stem == "harness":
        return
    tree = _tree(script)
    methods = {id(f) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for f in c.body}
    defined = [
        node.name
        for node in ast.walk(tree)  # a client's own `timed` method is not a copy
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and id(node) not in methods
        and (node.name.strip("_") in HARNESS_ONLY or any(w in node.name.lower() for w in HARNESS_WORDS))
    ]
    assert defined == [], f"{script.name} defines {defined}: use benchmarks/harness.py's"
    source = script.read_text(encoding="utf-8")
    assert "ru_maxrss" not in source and "statistics.quantiles" not in source and "np.percentile(ms" not in source


@pytest.mark.parametrize("script", ALL, ids=[s.stem for s in ALL])
def test_no_script_reads_a_private_field(script):
    private = sorted(
        {
            f"{ast.unparse(node.value)}.{node.attr}"
            for node in ast.walk(_tree(script))
            if isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and not (isinstance(node.value, ast.Name) and node.value.id == "self")
        }
    )
    assert private == [], f"{script.name} reads private fields: {private}"


@pytest.mark.parametrize("q", [0, 1, 5, 10, 50, 90, 95, 99, 100])
@pytest.mark.parametrize("n", [1, 2, 7, 30, 101])
def test_percentile_is_numpys_linear_interpolation(harness, q, n):
    values = np.random.default_rng(n).exponential(size=n).tolist()
    assert harness.percentile(values, q) == pytest.approx(float(np.percentile(values, q, method="linear")))
    assert harness.percentile(values, q) == pytest.approx(float(np.percentile(values, q)))  # numpy's default


def test_percentile_examples_state_the_definition(harness):
    assert harness.percentile([1, 2, 3, 4], 50) == 2.5  # between the two middle values
    assert harness.percentile(range(1, 21), 95) == pytest.approx(19.05)  # between the 19th and the 20th
    assert harness.percentiles_ms([0.001, 0.002, 0.003, 0.004]) == {"p50": 2.5, "p95": 3.85, "n": 4}


def test_timed_and_stage_timer_return_values_and_seconds(harness):
    value, seconds = harness.timed(sum, [1, 2, 3])
    assert value == 6 and 0 <= seconds < 1
    stages, timed_stage = harness.stage_timer()
    assert timed_stage("a", max, 3, 4) == 4 and timed_stage("a", min, 3, 4) == 3
    assert list(stages) == ["a"] and len(stages["a"]) == 2
    assert len(harness.seconds_each(abs, [-1, 2, -3])) == 3


def test_memory_figures_are_mebibytes(harness):
    now, peak = harness.rss_mb(), harness.peak_rss_mb()
    assert 1 < now < 1e6 and peak > 0.9 * now  # the kernel updates the peak lazily


def test_the_hog_burns_a_core_while_inside_only(harness):
    with harness.cpu_hog() as hog:
        assert hog.poll() is None
    assert hog.poll() is not None
    with harness.cpu_hog(False) as nothing:
        assert nothing is None


def test_the_shared_parser_and_the_report_shape(harness, tmp_path, capsys):
    parser = harness.parser(str(BENCHMARKS / "probe.py"), "First line.\n\nMore.", hog=True)
    parser.add_argument("--size", type=int, default=3)
    args = parser.parse_args(["--json", "--out", str(tmp_path / "r.json"), "--hog"])
    assert (args.benchmark, args.json, args.hog, args.size) == ("probe", True, True, 3)
    assert harness.conditions(args) == ["idle", "hog"]
    assert parser.description == "First line."
    assert not hasattr(harness.parser(__file__, None).parse_args([]), "hog")  # --hog where latency is timed

    made = harness.emit(args, {"a": {"p50": 1.0}, "path": Path("/x")}, ["human line"])
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads((tmp_path / "r.json").read_text()) == json.loads(json.dumps(made, default=str))
    assert list(printed) == ["benchmark", "host", "figures"]
    assert printed["benchmark"] == "probe" and printed["figures"] == {"a": {"p50": 1.0}, "path": "/x"}
    assert {"cpu", "load_average_1min", "speed", "steal_share"} <= set(printed["host"])


def test_without_json_the_human_lines_and_the_host_line_are_printed(harness, capsys):
    args = harness.parser(__file__, "Doc.").parse_args([])
    harness.emit(
        args,
        {"a": {"b": 1}, "c": 2},
        host={
            "cpu": {"model": "X", "cores": 2, "bf16": []},
            "load_average_1min": 0.1,
            "speed": {"python_loop_mips": 1, "gemm_gflops": 2},
        },
    )
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["a.b: 1", "c: 2"] and out[2].startswith("host: X · 2 cores")
    harness.say(args, "to stdout")
    assert capsys.readouterr().out == "to stdout\n"
    harness.say(harness.parser(__file__, "Doc.").parse_args(["--json"]), "to stderr")
    assert capsys.readouterr().err == "to stderr\n"


def _run(script: str, *args: str) -> dict:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        "HF_HUB_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
    }
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--json", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)  # stdout holds the report alone
    assert list(report) == ["benchmark", "host", "figures"] and report["benchmark"] == Path(script).stem
    assert report["host"]["cpu"]["cores"] >= 1 and report["host"]["steal_share"] is not None
    return report["figures"]


def test_graph_precision_runs_end_to_end_with_json():
    figures = _run("graph_precision.py")
    assert figures["passages"] > 0 and set(figures["splits"]) >= {"all"}
    overall = figures["splits"]["all"]["by_type"]["all"]
    assert overall["correct"] <= min(overall["predicted"], overall["gold"]) and 0 < overall["precision"] <= 1


def test_vector_backends_runs_end_to_end_with_json_and_hog():
    figures = _run("vector_backends.py", "--sizes", "300", "--backends", "edge", "--queries", "5", "--hog")
    assert [row["condition"] for row in figures["rows"]] == ["idle", "hog"]
    for row in figures["rows"]:
        assert row["plain_exact"] == row["year_exact"] == "5/5" and row["plain_p50_ms"] <= row["plain_p95_ms"]
