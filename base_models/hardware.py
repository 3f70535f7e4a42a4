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


def isa_capped() -> str | None:
    """The variable that caps torch's and oneDNN's kernels below AVX512 in this process
    (`ONEDNN_MAX_CPU_ISA=AVX2 ATEN_CPU_CAPABILITY=avx2` is how an AVX2-only CPU is approximated),
    or None. Under such a cap the bf16 units are not used, so bf16 would be emulated."""
    import os

    for var in ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA"):
        value = os.environ.get(var, "").strip().lower()
        if value and not value.startswith(("avx512", "amx", "all")):
            return f"{var}={os.environ[var]}"
    return None


def cpu_bf16_unit(flags: set[str] | None = None) -> str | None:
    """The name of a bf16 matrix unit (AMX-BF16, AVX512-BF16), or None where bf16 is emulated
    (no such unit, or this process's kernels capped below it: `isa_capped`)."""
    if flags is None:
        if isa_capped():
            return None
        flags = cpu_flags()
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
