"""The vLLM OpenAI server's command line, built from one validated ServeConfig.

Flags are those of vLLM 0.32 (vllm/engine/arg_utils.py, vllm/entrypoints/openai/cli_args.py).
Kept apart from process management so the argv can be unit-tested without starting anything.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import subprocess
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from base_models.hardware import cpu_bf16_unit, gpu_count, usable_cores
from base_models.model_info import adapter_rank, is_vision_model

# vLLM on CPU accepts these LoRA ranks only (vllm/config/lora.py); round an adapter's r up.
_VLLM_LORA_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)
HOST = "127.0.0.1"  # the default: nothing beyond this machine reaches a server unless asked
_CPU_LIST = r"\d+(-\d+)?(,\d+(-\d+)?)*"


class Adapter(BaseModel):
    """One LoRA module: served name -> PEFT adapter directory."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9._\-]+$")
    path: Path

    @classmethod
    def parse(cls, spec: str) -> Adapter:
        """``NAME=DIR`` as typed on the command line."""
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise ValueError(f"adapter must be NAME=DIR, got {spec!r}")
        return cls(name=name.strip(), path=Path(path.strip()).expanduser())


class ServeConfig(BaseModel):
    """Everything `pathwise serve` decides; the argv and the environment derive from it."""

    model_config = ConfigDict(extra="forbid")
    base: str = Field(description="base model directory or hub id")
    adapters: list[Adapter] = Field(default_factory=list)
    served_model_name: str | None = Field(
        default=None, description="name of the base on /v1/models (default: the base path)"
    )
    host: str = Field(default=HOST, min_length=1, description="address the server binds to")
    port: int = Field(default=0, ge=0, le=65535, description="0 picks a free port")
    api_key: SecretStr | None = Field(
        default=None, exclude=True, repr=False, description="clients must send it (VLLM_API_KEY)"
    )
    tensor_parallel_size: int = Field(default=1, ge=1, description="GPUs one model spans")
    data_parallel_size: int = Field(
        default=1, ge=1, description="engine replicas behind the one endpoint (vLLM's own DP)"
    )
    max_model_len: int = Field(default=4096, ge=64)
    dtype: str = Field(
        default="auto", description="auto (see resolve_dtype), bfloat16, float16 or float32"
    )
    structured_outputs_backend: str = "guidance"
    compact_json: bool = Field(
        default=True, description="no free whitespace in structured JSON (disable_any_whitespace)"
    )
    max_loras: int = Field(default=4, ge=1)
    max_num_seqs: int = Field(default=32, ge=1)
    images_per_prompt: int = Field(default=1, ge=0)
    vision: bool | None = Field(default=None, description="None: detect from config.json")
    allow_runtime_lora: bool = True
    kv_cache_gib: float = Field(default=1.0, gt=0, description="VLLM_CPU_KVCACHE_SPACE")
    cpu_bind: str | None = Field(
        default=None,
        pattern=rf"^{_CPU_LIST}(\|{_CPU_LIST})*$",
        description="VLLM_CPU_OMP_THREADS_BIND for vllm-cpu: the cores each worker uses, one "
        "list per worker joined by | (0-3|4-7); default with TP/DP on a CPU: equal shares",
    )
    cuda_devices: str | None = Field(
        default=None, pattern=r"^\d+(,\d+)*$", description="CUDA_VISIBLE_DEVICES on a GPU node"
    )
    extra_args: list[str] = Field(default_factory=list)

    @field_validator("adapters")
    @classmethod
    def _unique_names(cls, v: list[Adapter]) -> list[Adapter]:
        names = [a.name for a in v]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate adapter names: {names}")
        return v

    @property
    def base_name(self) -> str:
        return self.served_model_name or self.base

    @property
    def workers(self) -> int:
        """Model workers vLLM starts: one per tensor-parallel rank per data-parallel replica."""
        return self.tensor_parallel_size * self.data_parallel_size

    def is_vision(self) -> bool:
        """As told, else the base's config (a local folder, or a hub id's in the HF cache)."""
        return self.vision if self.vision is not None else is_vision_model(self.base)

    def is_local(self) -> bool:
        """The base and every adapter are folders here: the server needs no hub at all."""
        return Path(self.base).expanduser().exists() and all(a.path.exists() for a in self.adapters)


def resolve_dtype(dtype: str, *, gpu: bool | None = None, bf16_units: bool | None = None) -> str:
    """The --dtype vLLM gets. `auto`: bfloat16 on a GPU node or a CPU with bf16 units, float32
    on a CPU without them: there vllm-cpu emulates bf16 (measured on a 2-core AVX2-only EPYC:
    under 3 generated tokens/s for the 135 M demo student)."""
    if dtype != "auto":
        return dtype
    gpu = shutil.which("nvidia-smi") is not None if gpu is None else gpu
    if gpu:
        return "bfloat16"
    bf16_units = cpu_bf16_unit() is not None if bf16_units is None else bf16_units
    return "bfloat16" if bf16_units else "float32"


def client_host(host: str) -> str:
    """Where a client on this machine reaches a server bound to `host` (any address: loopback)."""
    return HOST if host in ("", "0.0.0.0", "::") else host


def free_port() -> int:
    """A port free right now on 127.0.0.1 (the small race with other binders is acceptable)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def lora_rank_for(adapters: list[Adapter]) -> int:
    """--max-lora-rank: the largest adapter r, rounded up to a rank vLLM supports."""
    r = max(adapter_rank(a.path) for a in adapters)
    for allowed in _VLLM_LORA_RANKS:
        if r <= allowed:
            return allowed
    raise ValueError(f"LoRA rank {r} exceeds vLLM's maximum {_VLLM_LORA_RANKS[-1]}")


def _local_or_id(model: str) -> str:
    """Absolute path for a local checkpoint (the server may run elsewhere), else the hub id."""
    path = Path(model).expanduser()
    return str(path.resolve()) if path.exists() else model


@functools.lru_cache(maxsize=8)
def gpu_vllm(python: str) -> bool:
    """The serving environment holds the GPU build (distribution `vllm`), not `vllm-cpu`."""
    probe = "import importlib.metadata as m; m.distribution('vllm')"
    try:
        return (
            subprocess.run([python, "-c", probe], capture_output=True, timeout=60).returncode == 0
        )
    except (OSError, subprocess.TimeoutExpired):
        return False


def entry_point(python: str, gpu_build: bool | None = None) -> list[str]:
    """`vllm serve` where the GPU build is installed; the API server module in vllm-cpu, whose
    `vllm` script fails its own package-metadata lookup (the distribution is named vllm-cpu)."""
    if gpu_vllm(python) if gpu_build is None else gpu_build:
        script = Path(python).parent / "vllm"
        return (
            [str(script), "serve"]
            if script.exists()
            else [python, "-m", "vllm.entrypoints.cli.main", "serve"]
        )
    return [python, "-m", "vllm.entrypoints.openai.api_server", "--model"]


def build_argv(
    cfg: ServeConfig, python: str, port: int, gpu_build: bool | None = None
) -> list[str]:
    """The full command: `vllm serve MODEL ...` (GPU build) or
    `python -m vllm.entrypoints.openai.api_server --model MODEL ...` (vllm-cpu). The API key is
    never on it: it goes in the environment (VLLM_API_KEY)."""
    argv = [
        *entry_point(python, gpu_build),
        _local_or_id(cfg.base),
        "--served-model-name",
        cfg.base_name,
        "--host",
        cfg.host,
        "--port",
        str(port),
        "--max-model-len",
        str(cfg.max_model_len),
        "--dtype",
        resolve_dtype(cfg.dtype),
        "--max-num-seqs",
        str(cfg.max_num_seqs),
        # guidance: strictly valid JSON (xgrammar let raw control characters into strings here).
        # disable_any_whitespace: compact JSON like the SFT targets; a weak student cannot
        # spend its token budget on tabs and newlines between keys.
        "--structured-outputs-config",
        json.dumps(
            {
                "backend": cfg.structured_outputs_backend,
                "disable_any_whitespace": cfg.compact_json,
            }
        ),
    ]
    if cfg.tensor_parallel_size > 1:
        argv += ["--tensor-parallel-size", str(cfg.tensor_parallel_size)]
    if cfg.data_parallel_size > 1:
        argv += ["--data-parallel-size", str(cfg.data_parallel_size)]
    if cfg.adapters:
        argv += [
            "--enable-lora",
            "--max-lora-rank",
            str(lora_rank_for(cfg.adapters)),
            "--max-loras",
            str(max(cfg.max_loras, len(cfg.adapters))),
            "--lora-modules",
            *(f"{a.name}={a.path.resolve()}" for a in cfg.adapters),
        ]
    elif cfg.allow_runtime_lora:
        # Runtime-loaded adapters still need LoRA enabled at start; rank is fixed at startup.
        argv += ["--enable-lora", "--max-lora-rank", "64", "--max-loras", str(cfg.max_loras)]
    if cfg.is_vision():
        argv += ["--limit-mm-per-prompt", json.dumps({"image": cfg.images_per_prompt})]
    return argv + list(cfg.extra_args)


def cpu_shares(workers: int, cores: list[int] | None = None) -> str:
    """VLLM_CPU_OMP_THREADS_BIND for `workers` vllm-cpu workers: equal contiguous shares of the
    cores this process may use, joined by | (vLLM reads one list per TP/DP rank)."""
    cores = usable_cores() if cores is None else cores
    if workers > len(cores):
        raise ValueError(
            f"{workers} vLLM workers (tensor x data parallel) need {workers} cores; this "
            f"process may use {len(cores)}"
        )
    per = len(cores) // workers
    return "|".join(_cpu_list(cores[i * per : (i + 1) * per]) for i in range(workers))


def _cpu_list(cores: list[int]) -> str:
    """`0-3` for a contiguous run, else `0,2,5` (VLLM_CPU_OMP_THREADS_BIND takes both)."""
    if len(cores) > 1 and cores == list(range(cores[0], cores[-1] + 1)):
        return f"{cores[0]}-{cores[-1]}"
    return ",".join(map(str, cores))


def build_env(
    cfg: ServeConfig, base_env: dict[str, str] | None = None, *, gpus: int | None = None
) -> dict[str, str]:
    """The server's environment: a small KV cache (shared CPU box), runtime LoRA updates, the API
    key, and on a CPU box each TP/DP worker bound to its own share of the cores."""
    env = dict(os.environ if base_env is None else base_env)
    env.setdefault("VLLM_CPU_KVCACHE_SPACE", str(max(1, round(cfg.kv_cache_gib))))
    if cfg.cpu_bind is not None:
        env["VLLM_CPU_OMP_THREADS_BIND"] = cfg.cpu_bind
    elif cfg.workers > 1 and not (gpu_count() if gpus is None else gpus):
        # vLLM's own CPU binding gives every DP engine the same cores (one NUMA node here).
        env["VLLM_CPU_OMP_THREADS_BIND"] = cpu_shares(cfg.workers)
    if cfg.cuda_devices is not None:
        env["CUDA_VISIBLE_DEVICES"] = cfg.cuda_devices
    if cfg.allow_runtime_lora:
        env["VLLM_ALLOW_RUNTIME_LORA_UPDATING"] = "True"
    if cfg.api_key is not None:
        env["VLLM_API_KEY"] = cfg.api_key.get_secret_value()
    if cfg.is_local():
        # Local folders only: nothing to fetch, so fail fast instead of retrying the hub. A hub
        # id resolves through the Hugging Face cache, online or not as the user has set it.
        env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("VLLM_NO_USAGE_STATS", "1")
    env.setdefault("DO_NOT_TRACK", "1")
    return env
