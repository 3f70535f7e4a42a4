"""The benchmark harness: one machine description, result files with it, never overwritten
unless asked, and arms timed in rotating order."""

from __future__ import annotations

import argparse
import json
import sys

import pytest

from benchmarks import harness
from common.machine import describe, machine, read_cpuinfo
from common.outputs import OutputExistsError
from common.results import write_results

CPUINFO = """processor\t: 0
model name\t: Intel(R) Xeon(R) Platinum 8480+
flags\t\t: fpu avx2 avx512f avx512_bf16 amx_bf16 amx_tile

processor\t: 1
model name\t: some other model
flags\t\t: fpu
"""


def test_machine_reads_the_first_processor(tmp_path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text(CPUINFO)
    assert read_cpuinfo(info)["model name"] == "Intel(R) Xeon(R) Platinum 8480+"
    m = machine(info)
    assert m["cpu"] == "Intel(R) Xeon(R) Platinum 8480+"
    assert m["simd"] == ["AVX2", "AVX512F", "AVX512-BF16", "AMX-BF16"]
    assert m["cores"] >= 1 and m["ram_gib"] > 0 and m["python"].count(".") == 2
    line = describe(m)
    assert line.startswith("Intel(R) Xeon(R) Platinum 8480+, ")
    assert "AMX-BF16" in line and "emulated" not in line


def test_machine_without_cpuinfo_says_bf16_is_emulated(tmp_path) -> None:
    m = machine(tmp_path / "missing")
    assert m["simd"] == [] and m["cpu"]
    assert "no AVX2; bf16 emulated" in describe(m)


def test_results_carry_the_machine_and_are_never_overwritten(tmp_path) -> None:
    js, md = write_results(tmp_path / "x", {"median_us": 41.0}, "# X\n\n| a |\n")
    doc = json.loads(js.read_text())
    assert doc["median_us"] == 41.0 and doc["machine"]["cores"] >= 1
    assert md.read_text().startswith("# X\n") and "\nMachine: " in md.read_text()
    with pytest.raises(OutputExistsError, match="--force"):
        write_results(tmp_path / "x", {"median_us": 1.0}, "# X")
    assert json.loads(js.read_text())["median_us"] == 41.0  # untouched by the refusal
    write_results(tmp_path / "x", [{"run": 1}], "# X", overwrite=True)
    assert json.loads(js.read_text())["rows"] == [{"run": 1}]


def test_harness_writes_under_the_benchmark_name(tmp_path, capsys) -> None:
    js, md = harness.write_results("demo_bench", {"n": 3}, "# Demo", results=tmp_path)
    assert js == tmp_path / "demo_bench.json" and md == tmp_path / "demo_bench.md"
    assert json.loads(js.read_text())["benchmark"] == "demo_bench"
    assert "# Demo" in capsys.readouterr().out
    assert harness.results_path("guards") == harness.RESULTS / "guards.json"


def test_parse_refuses_existing_results_before_any_work(tmp_path, monkeypatch) -> None:
    (tmp_path / "guards.md").write_text("committed")
    monkeypatch.setattr(sys, "argv", ["bench", "--results", str(tmp_path)])
    with pytest.raises(SystemExit) as exc:
        harness.parse(argparse.ArgumentParser(), "guards")
    assert exc.value.code == 2
    monkeypatch.setattr(sys, "argv", ["bench", "--results", str(tmp_path), "--overwrite"])
    assert harness.parse(argparse.ArgumentParser(), "guards").overwrite


def test_side_by_side_rotates_the_arms_and_keeps_outputs() -> None:
    calls: list[tuple[str, int]] = []

    def arm(name: str):
        def run(r: int) -> int:
            calls.append((name, r))
            return 10 * r

        return run

    res = harness.side_by_side({"a": arm("a"), "b": arm("b"), "c": arm("c")}, 3, warmup=True)
    assert calls[:3] == [("a", -1), ("b", -1), ("c", -1)]
    order = [n for n, r in calls[3:]]
    assert order == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]
    assert res["b"]["outputs"] == [0, 10, 20]
    s = res["a"]["seconds"]
    assert s["n"] == 3 and s["min"] <= s["median"] <= s["p95"] <= s["max"]


def test_spread_scales_and_rounds() -> None:
    s = harness.spread([0.001, 0.002, 0.003, 0.004], scale=1e3, digits=1)
    assert s == {"n": 4, "median": 2.5, "p95": 4.0, "min": 1.0, "max": 4.0}
