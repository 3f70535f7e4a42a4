"""What this CPU runs natively: one reading for vLLM's dtype and for training's precision.

Lives in serving/ (the lower package) so training/ can read it without serving/ importing training/.
"""

from __future__ import annotations

from pathlib import Path

from common.machine import CPUINFO, SIMD_FLAGS, read_cpuinfo

# AMX first: where a CPU has both, it is the unit that runs the matmuls.
BF16_FLAGS = {flag: SIMD_FLAGS[flag] for flag in ("amx_bf16", "avx512_bf16")}


def cpu_flags(cpuinfo: Path = CPUINFO) -> set[str]:
    """The first `flags` line of /proc/cpuinfo; empty where it cannot be read (not Linux)."""
    return set(read_cpuinfo(cpuinfo).get("flags", "").split())


def cpu_bf16_unit(flags: set[str] | None = None) -> str | None:
    """The name of a bf16 matrix unit (AMX-BF16, AVX512-BF16), or None where bf16 is emulated."""
    flags = cpu_flags() if flags is None else flags
    return next((name for flag, name in BF16_FLAGS.items() if flag in flags), None)


def gpu_count() -> int:
    """GPUs `nvidia-smi -L` lists; 0 where there is no NVIDIA driver (a CPU box)."""
    import shutil
    import subprocess

    if shutil.which("nvidia-smi") is None:
        return 0
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    return sum(line.startswith("GPU ") for line in out.stdout.splitlines())


def usable_cores() -> list[int]:
    """The CPU ids this process may run on (a container's cpuset, not the host's count)."""
    import os

    return sorted(os.sched_getaffinity(0))
