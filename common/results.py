"""A benchmark's result files: STEM.json (the numbers) and STEM.md (the table a doc links to).

Both carry the machine block of common.machine, so every committed number says where it was
measured. Like every output here they are never overwritten unless the caller asks: a
committed result is replaced on purpose, not by rerunning a command to look at it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from common.machine import describe, machine
from common.outputs import OutputExistsError, atomic_file


def result_files(stem: Path) -> tuple[Path, Path]:
    stem = Path(stem)
    return stem.with_name(stem.name + ".json"), stem.with_name(stem.name + ".md")


def refuse_existing_results(stem: Path, overwrite: bool = False, flag: str = "--force") -> None:
    """Refuse early, before any work, when STEM.json or STEM.md exists."""
    for path in result_files(stem):
        if path.exists() and not overwrite:
            raise OutputExistsError(
                f"refusing to overwrite {path}: results are never overwritten; pass {flag} or "
                "choose other --results"
            )


def write_results(
    stem: Path,
    data: Mapping[str, Any] | Sequence[Any],
    markdown: str,
    *,
    overwrite: bool = False,
    flag: str = "--force",
) -> tuple[Path, Path]:
    """Write STEM.json ({"machine": ..., **data}, or rows under "rows") and STEM.md (the
    markdown, then a `Machine:` line). Refused before writing either when one exists."""
    json_path, md_path = result_files(stem)
    refuse_existing_results(stem, overwrite, flag)
    m = machine()
    body = dict(data) if isinstance(data, Mapping) else {"rows": list(data)}
    doc = {"machine": m, **{k: v for k, v in body.items() if k != "machine"}}
    with atomic_file(json_path, overwrite, flag) as tmp:
        tmp.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    with atomic_file(md_path, overwrite, flag) as tmp:
        tmp.write_text(f"{markdown.rstrip()}\n\nMachine: {describe(m)}.\n", encoding="utf-8")
    return json_path, md_path
