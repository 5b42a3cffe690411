"""How long each asset of a state's last corpus refresh took, and the peak memory while it ran.

    python benchmarks/build_stages.py --home S [--rss S.tree]

Read from the state's own Dagster instance (the run's step start and end events). `--rss` is a
file of lines `epoch_seconds total_kB largest_kB` sampled during the build (the process tree's
resident memory, e.g. by `ps` once a second): each step then gets the peak seen while it ran.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import harness  # noqa: E402

JOB = "refresh_corpus"


def step_windows(home: Path, back: int = 0) -> dict[str, tuple[float, float]]:
    """Step key -> (start, end) epoch seconds, for the last refresh run of the state at `home`
    (or the one `back` runs before it)."""
    import dagster as dg

    from corpus.state.layout import StateLayout
    from orchestration.runner import instance_for

    instance = instance_for(StateLayout(home))
    runs = instance.get_runs(filters=dg.RunsFilter(job_name=JOB), limit=back + 1)
    if len(runs) <= back:
        raise SystemExit(f"no {JOB} run {back} runs back under {home}")
    windows: dict[str, list[float]] = {}
    for record in instance.all_logs(runs[back].run_id):
        event = record.dagster_event
        if event is None or record.step_key is None:
            continue
        if event.event_type_value == "STEP_START":
            windows[record.step_key] = [record.timestamp, record.timestamp]
        elif event.event_type_value in ("STEP_SUCCESS", "STEP_FAILURE") and record.step_key in windows:
            windows[record.step_key][1] = record.timestamp
    return {key: (start, end) for key, (start, end) in sorted(windows.items(), key=lambda item: item[1][0])}


def peaks(samples: Path, windows: dict[str, tuple[float, float]]) -> dict[str, float]:
    """Step key -> the largest total resident memory (GB) sampled while it ran."""
    rows = [line.split() for line in samples.read_text().splitlines() if len(line.split()) == 3]
    points = [(float(t), int(total) / 2**20) for t, total, _ in rows]
    return {
        key: round(max((gb for t, gb in points if start - 1 <= t <= end + 1), default=0.0), 2)
        for key, (start, end) in windows.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--home", type=Path, required=True, help="a built state (read only)")
    parser.add_argument("--rss", type=Path, default=None, help="resident memory samples taken during the build")
    parser.add_argument("--back", type=int, default=0, help="the refresh run this many runs before the last")
    args = parser.parse_args(argv)
    windows = step_windows(args.home.resolve(), args.back)
    peak = peaks(args.rss, windows) if args.rss else {}
    figures = {
        key: {"s": round(end - start, 1), **({"peak_gb": peak[key]} if key in peak else {})}
        for key, (start, end) in windows.items()
    }
    lines = [
        f"{key:<40} {row['s']:>8.1f} s" + (f"  peak {row['peak_gb']} GB" if "peak_gb" in row else "")
        for key, row in figures.items()
    ]
    harness.emit(args, figures, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
