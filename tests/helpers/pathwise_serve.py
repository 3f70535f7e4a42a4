"""`pathwise serve` started as a user starts it, in a subprocess, for tests that need a real
server (vLLM, or the embedded one): it is ready when the command prints its endpoint, and it is
stopped as a user stops it, with Ctrl-C (SIGINT)."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

PATHWISE = str(Path(sys.executable).with_name("pathwise"))


class ServedProcess:
    """One `pathwise serve ARGS` run; `base_url` once `start()` returned."""

    def __init__(self, name: str, args: list[str], api_key: str, log: Path) -> None:
        self.name = name
        self.args = args
        self.api_key = api_key
        self.log = log
        self.base_url = ""
        self.output: list[str] = []
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()

    def start(self) -> ServedProcess:
        # The key travels as users are told to pass it: in the environment, not on argv.
        env = {**os.environ, "VLLM_API_KEY": self.api_key, "PYTHONUNBUFFERED": "1"}
        self._proc = subprocess.Popen(
            [PATHWISE, "serve", *self.args, "--log", str(self.log)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        threading.Thread(target=self._read, daemon=True).start()
        return self

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def wait_ready(self, timeout: float) -> ServedProcess:
        """Block until the command prints `endpoint: URL`; else fail with what it printed."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self._lines.get(timeout=1.0)
            except queue.Empty:
                continue
            if line is None:
                break
            self.output.append(line)
            if m := re.match(r"endpoint: (\S+)", line):
                self.base_url = m.group(1)
                return self
        tail = "\n".join(self.output[-30:])
        log = self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""
        self.stop()
        raise RuntimeError(f"`pathwise serve` ({self.name}) not ready:\n{tail}\n{log}")

    @property
    def root(self) -> str:
        return self.base_url.removesuffix("/v1")

    def auth(self, key: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {key or self.api_key}"}

    def served_models(self) -> list[str]:
        resp = httpx.get(f"{self.base_url}/models", headers=self.auth(), timeout=10)
        resp.raise_for_status()
        return [m["id"] for m in resp.json()["data"]]

    def stop(self) -> int | None:
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=60)
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        return proc.returncode
