"""A frozen snapshot on disk: KnowPlan, "CatalogBrowse" (the frozen source environment W_{s,y}).

`DIR/manifest.json` lists every page (URL, content type, status, sha256, size) and when the
snapshot was frozen; `DIR/pages/` holds the bytes. Nothing else in DIR is served.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field


class PageEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    url: str
    file: str
    content_type: str
    status: int = 200
    sha256: str
    bytes: int


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    institution: str
    family: str
    frozen_at: str
    root: str
    pages: list[PageEntry] = Field(default_factory=list)


class SnapshotError(ValueError):
    pass


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_snapshot(
    out: Path, institution: str, family: str, root: str, pages: dict, frozen_at: str | None = None
) -> Manifest:
    """Write pages ({url: Page}) and the manifest; refuses to overwrite an existing snapshot."""
    out = Path(out)
    if (out / "manifest.json").exists():
        raise SnapshotError(f"{out}: a snapshot is already there (remove it first)")
    (out / "pages").mkdir(parents=True, exist_ok=True)
    entries = []
    for i, (url, page) in enumerate(sorted(pages.items())):
        name = f"pages/{i:05d}"
        (out / name).write_bytes(page.body)
        entries.append(
            PageEntry(
                url=url,
                file=name,
                content_type=page.content_type,
                status=page.status,
                sha256=sha256(page.body),
                bytes=len(page.body),
            )
        )
    m = Manifest(
        institution=institution,
        family=family,
        frozen_at=frozen_at or datetime.now(UTC).isoformat(timespec="seconds"),
        root=root,
        pages=entries,
    )
    fd, tmp = tempfile.mkstemp(dir=out, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(m.model_dump_json(indent=1))
    os.replace(tmp, out / "manifest.json")
    return m


class Snapshot:
    """Read access to a snapshot: the manifest and each page's bytes, checked against sha256."""

    def __init__(self, directory: str | Path) -> None:
        self.dir = Path(directory)
        path = self.dir / "manifest.json"
        if not path.exists():
            raise SnapshotError(f"{path}: no manifest (not a snapshot directory)")
        try:
            self.manifest = Manifest.model_validate_json(path.read_text())
        except ValueError as exc:
            first = str(exc).splitlines()[0]
            raise SnapshotError(f"{path}: invalid manifest: {first}") from None
        self.by_url = {p.url: p for p in self.manifest.pages}
        self.manifest_sha256 = sha256(path.read_bytes())

    def get(self, url: str) -> tuple[int, bytes, str]:
        """(status, body, content type); a URL not in the snapshot is a 404."""
        entry = self.by_url.get(url)
        if entry is None:
            return 404, b"not found\n", "text/plain; charset=utf-8"
        body = (self.dir / entry.file).read_bytes()
        if sha256(body) != entry.sha256:
            raise SnapshotError(f"{self.dir / entry.file}: bytes do not match the manifest sha256")
        return entry.status, body, entry.content_type
