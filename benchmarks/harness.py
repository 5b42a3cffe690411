"""The frame every benchmark shares: one command line, one JSON shape, one way to time and count.

Each script builds its parser with `parser(__file__, __doc__)` and ends with `emit(args, figures,
lines)`, so every benchmark takes the same options beside its own:

  --json       print the report as JSON on stdout (progress and human lines go to stderr)
  --out PATH   also write the JSON report to PATH
  --hog        (scripts that time latencies) measure again while another process burns one core

and writes one JSON shape: {"benchmark": <script name>, "host": {...}, "figures": {...}}, the host
being benchmarks/host.py's description of the machine (CPU, bfloat16 flags, load, speed now, the
hypervisor's steal share over the run).

Percentiles are numpy's default definition, linear interpolation between the two closest ranks
(Hyndman & Fan type 7; what `statistics.quantiles(method="inclusive")` computes too), so p50 of
[1, 2, 3, 4] is 2.5 and p95 of twenty values lies between the 19th and the 20th.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from host import StealMeter, host_line, host_report

__all__ = [
    "StealMeter",
    "conditions",
    "cpu_hog",
    "emit",
    "parser",
    "peak_rss_mb",
    "percentile",
    "percentiles_ms",
    "report",
    "rss_mb",
    "say",
    "seconds_each",
    "stage_timer",
    "timed",
    "with_hog",
]

# The hypervisor's steal share is counted from here (the script's start) unless a script passes
# its own meter, started where its measured part begins.
RUN_METER = StealMeter()
PERCENTILE_METHOD = "linear"  # numpy.percentile's default; named so a reader need not look it up
HOG_WARM_UP_S = 0.5  # the hog reaches the scheduler's steady state within this


def percentile(values: Iterable[float], q: float) -> float:
    """The q-th percentile (0-100) of `values`, linear interpolation (module docstring)."""
    return float(np.percentile(np.asarray(list(values), dtype=float), q, method=PERCENTILE_METHOD))


def percentiles_ms(seconds: Iterable[float], digits: int = 2) -> dict[str, float | int]:
    """p50 and p95 in milliseconds of durations in seconds, and how many there were."""
    ms = [1000 * s for s in seconds]
    return {"p50": round(percentile(ms, 50), digits), "p95": round(percentile(ms, 95), digits), "n": len(ms)}


def timed(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
    """(fn's value, the wall seconds it took)."""
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, time.perf_counter() - start


def seconds_each(fn: Callable[[Any], Any], items: Iterable[Any]) -> list[float]:
    """Wall seconds of fn(item), one per item, in order."""
    return [timed(fn, item)[1] for item in items]


def stage_timer() -> tuple[dict[str, list[float]], Callable[..., Any]]:
    """(stages, timed_stage): timed_stage(name, fn, *args) calls fn, appends its seconds to stages[name]
    and returns its value."""
    stages: dict[str, list[float]] = {}

    def timed_stage(name: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        value, seconds = timed(fn, *args, **kwargs)
        stages.setdefault(name, []).append(seconds)
        return value

    return stages, timed_stage


def rss_mb() -> float:
    """Resident memory of this process now, in MiB (VmRSS; NaN where /proc is absent)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def peak_rss_mb() -> float:
    """The most resident memory this process has held, in MiB (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextlib.contextmanager
def cpu_hog(active: bool = True) -> Iterator[subprocess.Popen | None]:
    """Another program holding one core for the duration (`python -c "while True: pass"`): a
    latency measured beside it shows what a busy machine costs."""
    if not active:
        yield None
        return
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(HOG_WARM_UP_S)
        yield hog
    finally:
        hog.kill()
        hog.wait()


def conditions(args: argparse.Namespace) -> list[str]:
    """ "idle", then "hog" when --hog was given: for `with cpu_hog(condition == "hog")`."""
    return ["idle", "hog"] if getattr(args, "hog", False) else ["idle"]


def with_hog(args: argparse.Namespace, measure: Callable[[], dict]) -> dict:
    """measure()'s figures; with --hog, the same again beside a CPU hog under the key "hog"."""
    figures = measure()
    if getattr(args, "hog", False):
        with cpu_hog():
            figures["hog"] = measure()
    return figures


def parser(script: str, doc: str | None, hog: bool = False) -> argparse.ArgumentParser:
    """The script's parser with the shared options (module docstring); add the script's own after.
    `script`: the script's __file__ (its name names the benchmark); `hog`: offer --hog."""
    made = argparse.ArgumentParser(description=(doc or "").strip().splitlines()[0] if doc else None)
    made.set_defaults(benchmark=Path(script).stem)
    made.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    made.add_argument("--out", type=Path, default=None, metavar="PATH", help="also write the JSON report here")
    if hog:
        made.add_argument("--hog", action="store_true", help="also measure while another process burns one core")
    return made


def say(args: argparse.Namespace, *parts: Any) -> None:
    """A human line: on stdout, or on stderr under --json (stdout then holds the report alone)."""
    print(*parts, file=sys.stderr if getattr(args, "json", False) else sys.stdout, flush=True)


def report(name: str, figures: dict, meter: StealMeter | None = None, host: dict | None = None) -> dict:
    """The one JSON shape: {"benchmark", "host", "figures"}; the steal share over `meter`'s span
    (default: since the harness was imported)."""
    return {
        "benchmark": name,
        "host": host if host is not None else host_report(meter or RUN_METER),
        "figures": figures,
    }


def flat_lines(figures: dict, prefix: str = "") -> list[str]:
    """`a.b: value` per leaf of nested figures: the human lines of a script that has no table."""
    lines = []
    for key, value in figures.items():
        if isinstance(value, dict) and value:
            lines += flat_lines(value, f"{prefix}{key}.")
        else:
            lines.append(f"{prefix}{key}: {value}")
    return lines


def emit(
    args: argparse.Namespace,
    figures: dict,
    lines: Iterable[str] | None = None,
    meter: StealMeter | None = None,
    host: dict | None = None,
) -> dict:
    """Print the report as JSON (--json) or as `lines` (default: flat_lines) and the host line;
    write it to --out when given. `host`: one measured earlier (e.g. right after the timed part)."""
    made = report(args.benchmark, figures, meter, host)
    text = json.dumps(made, indent=1, default=str, ensure_ascii=False)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    if args.json:
        print(text, flush=True)
    else:
        for line in flat_lines(figures) if lines is None else lines:
            print(line)
        print(host_line(made["host"]), flush=True)
    return made
