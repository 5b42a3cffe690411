"""benchmarks/host.py names the machine a figure was measured on: CPU model, bfloat16 support and
the hypervisor's steal share over the run (two hosts of one machine kind differ two-fold)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

HOST_SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "host.py"


@pytest.fixture(scope="module")
def host():
    spec = importlib.util.spec_from_file_location("benchmark_host", HOST_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _stat(path: Path, steal: int, idle: int) -> Path:
    # user nice system idle iowait irq softirq steal guest guest_nice
    path.write_text(f"cpu  100 0 50 {idle} 5 0 1 {steal} 0 0\ncpu0 50 0 25 1 1 0 0 1 0 0\n")
    return path


def test_the_cpu_and_its_bfloat16_flags_are_named(host, tmp_path):
    amd = tmp_path / "amd"
    amd.write_text(
        "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
        "model name\t: AMD EPYC\nflags\t\t: fpu avx512f avx512_bf16\n\n"
        "processor\t: 1\nmodel name\t: another\n"
    )
    described = host.cpu_description(amd)
    assert (described["model"], described["vendor"], described["family"]) == ("AMD EPYC", "AuthenticAMD", "26")
    assert described["bf16"] == ["avx512_bf16"] and described["cores"] >= 1
    assert host.cpu_description(tmp_path / "missing")["bf16"] == []


def test_steal_share_counts_only_the_run(host, tmp_path):
    stat = _stat(tmp_path / "stat", steal=1000, idle=10_000)  # steal before the run is not counted
    meter = host.StealMeter(stat)
    _stat(stat, steal=1030, idle=10_270)  # 300 more jiffies in all, 30 of them stolen
    assert meter.share() == 0.1
    assert host.StealMeter(tmp_path / "absent").share() is None


def test_the_terminal_line_says_what_a_reader_compares(host, tmp_path):
    meter = host.StealMeter(_stat(tmp_path / "stat", steal=0, idle=100))
    _stat(tmp_path / "stat", steal=50, idle=150)
    report = host.host_report(meter)
    assert report["speed"]["python_loop_mips"] > 0 and report["speed"]["gemm_gflops"] > 0
    line = host.host_line(report)
    assert line.startswith("host: ") and " cores · bf16 " in line and " Mips · GEMM " in line
    assert line.endswith("steal 50.0 %")
