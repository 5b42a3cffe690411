"""The machine a benchmark ran on, reported beside its figures.

Sessions of this project have run on different hosts under one machine kind: an Intel CPU with
AMX tiles and an AMD EPYC (Zen 5) with AVX-512 BF16 and no AMX. The same code's figures differ by
up to two-fold between sessions, which earlier notes read as the host's "phases", and by a third
within an hour on one host (an ingest in 108 s, then 152 s). Every benchmark now names the CPU, its
bfloat16 support and the share of CPU time the hypervisor gave to other guests during the run
(`steal` in /proc/stat), and times two fixed workloads at its end (`cpu_speed`, ≈ 0.3 s), so a
figure is read against how fast its host was at the time.

    python benchmarks/host.py       # the description of this machine, as JSON
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from corpus.encoding.bf16_encoder import BF16_FLAGS, CPUINFO

PROC_STAT = Path("/proc/stat")
LOOP_ITERATIONS = 300_000


def cpu_description(cpuinfo: Path = CPUINFO) -> dict:
    """Model name, vendor, family / model numbers, usable cores and the bfloat16 flags present
    (the first processor's fields; empty values where /proc/cpuinfo is absent)."""
    fields: dict[str, str] = {}
    try:
        text = cpuinfo.read_text()
    except OSError:
        text = ""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    flags = set(fields.get("flags", "").split())
    return {
        "model": fields.get("model name"),
        "vendor": fields.get("vendor_id"),
        "family": fields.get("cpu family"),
        "model_number": fields.get("model"),
        "cores": len(os.sched_getaffinity(0)),
        "bf16": sorted(BF16_FLAGS & flags),
    }


def cpu_times(stat: Path = PROC_STAT) -> tuple[int, int]:
    """(steal, total) jiffies of all CPUs since boot; (0, 0) where /proc/stat is absent."""
    try:
        first = stat.read_text().splitlines()[0].split()
    except (OSError, IndexError):
        return 0, 0
    # user nice system idle iowait irq softirq steal [guest guest_nice: already inside user/nice]
    values = [int(v) for v in first[1:9]]
    return (values[7] if len(values) > 7 else 0), sum(values)


class StealMeter:
    """The share of CPU time the hypervisor gave to other guests between `start` and `share()`."""

    def __init__(self, stat: Path = PROC_STAT) -> None:
        self.stat = stat
        self.start = cpu_times(stat)

    def share(self) -> float | None:
        steal, total = cpu_times(self.stat)
        elapsed = total - self.start[1]
        return round((steal - self.start[0]) / elapsed, 4) if elapsed > 0 else None


def cpu_speed(repeats: int = 5) -> dict:
    """The host's speed now, best of `repeats`: millions of iterations per second of a plain Python
    loop (the server's code path is mostly Python) and GFLOP/s of a 512 × 512 float32 matrix
    product with numpy's own BLAS threads (ingestion's embedding is matrix products)."""
    import numpy as np

    loop, product = float("inf"), float("inf")
    matrix = np.random.default_rng(0).standard_normal((512, 512)).astype(np.float32)
    for _ in range(repeats):
        start, total = time.perf_counter(), 0
        for i in range(LOOP_ITERATIONS):
            total += i * i
        loop = min(loop, time.perf_counter() - start)
        start = time.perf_counter()
        matrix @ matrix
        product = min(product, time.perf_counter() - start)
    return {
        "python_loop_mips": round(LOOP_ITERATIONS / loop / 1e6, 1),
        "gemm_gflops": round(2 * 512**3 / product / 1e9, 1),
    }


def host_report(meter: StealMeter | None = None) -> dict:
    """The CPU, the load average, its speed now and, with a meter, the steal share since it started."""
    report = {"cpu": cpu_description(), "load_average_1min": round(os.getloadavg()[0], 2), "speed": cpu_speed()}
    if meter is not None:
        report["steal_share"] = meter.share()
    return report


def host_line(report: dict) -> str:
    """One line for a terminal: `host: AMD EPYC · 2 cores · bf16 avx512_bf16 · load 0.4 · Python 18.0
    Mips · GEMM 210.0 GFLOP/s · steal 0.0 %`."""
    cpu, speed = report["cpu"], report["speed"]
    parts = [
        f"host: {cpu['model'] or 'unknown CPU'}",
        f"{cpu['cores']} cores",
        "bf16 " + ("/".join(cpu["bf16"]) or "none"),
        f"load {report['load_average_1min']}",
        f"Python {speed['python_loop_mips']} Mips",
        f"GEMM {speed['gemm_gflops']} GFLOP/s",
    ]
    if report.get("steal_share") is not None:
        parts.append(f"steal {100 * report['steal_share']:.1f} %")
    return " · ".join(parts)


if __name__ == "__main__":
    print(json.dumps(host_report(), indent=1))
