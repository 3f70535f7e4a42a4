"""What this CPU runs natively: one reading for vLLM's dtype and for training's precision.

Lives in serving/ (the lower package) so training/ can read it without serving/ importing training/.
"""

from __future__ import annotations

from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")
BF16_FLAGS = {"amx_bf16": "AMX-BF16", "avx512_bf16": "AVX512-BF16"}


def cpu_flags(cpuinfo: Path = CPUINFO) -> set[str]:
    """The first `flags` line of /proc/cpuinfo; empty where it cannot be read (not Linux)."""
    try:
        text = cpuinfo.read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def cpu_bf16_unit(flags: set[str] | None = None) -> str | None:
    """The name of a bf16 matrix unit (AMX-BF16, AVX512-BF16), or None where bf16 is emulated."""
    flags = cpu_flags() if flags is None else flags
    return next((name for flag, name in BF16_FLAGS.items() if flag in flags), None)
