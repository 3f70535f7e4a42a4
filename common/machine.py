"""The machine a measurement ran on, described once for every benchmark result file.

Read from /proc/cpuinfo and the standard library only: a benchmark must not pay for importing
torch to say which torch it had, so the version comes from the installed package's metadata.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

CPUINFO = Path("/proc/cpuinfo")
# The units that decide how fast a CPU runs our matmuls (bf16 is emulated without the last two).
SIMD_FLAGS = {
    "avx2": "AVX2",
    "avx512f": "AVX512F",
    "avx512_bf16": "AVX512-BF16",
    "amx_bf16": "AMX-BF16",
}


def read_cpuinfo(path: Path = CPUINFO) -> dict[str, str]:
    """The first processor's `key: value` lines; empty where the file cannot be read."""
    try:
        text = path.read_text()
    except OSError:
        return {}
    out: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if out:
                break  # the other processors repeat the first one's model and flags
            continue
        key, _, value = line.partition(":")
        out.setdefault(key.strip(), value.strip())
    return out


def machine(cpuinfo: Path = CPUINFO) -> dict[str, Any]:
    """CPU model, usable cores, SIMD units, RAM, OS, Python, torch (if installed), load, date."""
    info = read_cpuinfo(cpuinfo)
    flags = set(info.get("flags", "").split())
    try:
        torch = metadata.version("torch")
    except metadata.PackageNotFoundError:
        torch = None
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return {
        "cpu": info.get("model name") or platform.processor() or platform.machine(),
        "cores": len(os.sched_getaffinity(0)),  # a container's cpuset, not the host's count
        "simd": [name for flag, name in SIMD_FLAGS.items() if flag in flags],
        "ram_gib": round(ram / 2**30, 1),
        "os": f"{platform.system()} {platform.machine()}",
        "python": platform.python_version(),
        "torch": torch,
        # Machines here are shared: the load says how much of them the run had.
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "date": dt.date.today().isoformat(),
    }


def describe(m: dict[str, Any]) -> str:
    """One line for a results page, e.g. `Intel Xeon, 2 cores (AVX2), 7.8 GiB RAM, ...`."""
    simd = ", ".join(m["simd"]) or "no AVX2"
    if not {"AVX512-BF16", "AMX-BF16"} & set(m["simd"]):
        simd += "; bf16 emulated"
    torch = f", torch {m['torch']}" if m.get("torch") else ""
    return (
        f"{m['cpu']}, {m['cores']} cores ({simd}), {m['ram_gib']} GiB RAM, {m['os']}, "
        f"Python {m['python']}{torch}; 1-min load {m['load_avg_1m']} at the end; {m['date']}"
    )
