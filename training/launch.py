"""`pathwise train`: training/sft.py under `accelerate launch`, as a GPU node runs it (WebRider
Appendix E, Tables 37-39).

The recipe names its own accelerate config (`distributed.accelerate_config`); a user may point at
another one and pass the process and machine options through, with accelerate's meaning
(`num_processes` is the total over all machines). The command that runs is printed before it
runs, so a launch can be copied into a scheduler script as it is. Hub access is the user's
choice: nothing here sets or clears HF_HUB_OFFLINE.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from training.sft import SUMMARY_FILE
from training.sft_config import REPO_ROOT, RecipeError, load_recipe, resolve_path

# One process on this machine's CPU: used only when a recipe names no accelerate config.
DEFAULT_ACCELERATE_CONFIG = "training/accelerate/cpu.yaml"


class TrainLaunch(BaseModel):
    """Everything `pathwise train` passes on; None leaves the recipe's (or config's) value.

    Its paths are the caller's: made absolute against the directory it is built in, since the
    training processes run from the repository root, where a relative path names another file.
    A model that is no folder here is a hub id and stays as it is; a recipe's own paths
    (data.dataset, output_dir) are the repository's (sft_config.resolve_path).
    """

    model_config = ConfigDict(extra="forbid")
    recipe: Path
    dataset: Path | None = None
    model: str | None = None
    out: Path | None = None
    accelerate_config: Path | None = None
    num_processes: int | None = Field(default=None, ge=1)
    num_machines: int | None = Field(default=None, ge=1)
    machine_rank: int | None = Field(default=None, ge=0)
    main_process_ip: str | None = None
    main_process_port: int | None = Field(default=None, ge=1, le=65535)
    max_steps: int | None = Field(default=None, ge=1)
    precision: Literal["bf16", "fp32", "auto"] | None = None
    micro_batch: int | None = Field(default=None, ge=1)
    grad_accum: int | None = Field(default=None, ge=1)
    resume: str = "auto"
    # Every process validates the recipe, its batch against the launch and TRL's config, and
    # exits: no model, no dataset (a GPU launch checked on any machine).
    check: bool = False

    @field_validator("recipe", "dataset", "out", "accelerate_config")
    @classmethod
    def _from_caller(cls, path: Path | None) -> Path | None:
        return None if path is None else Path(os.path.abspath(path))

    @field_validator("model", "resume")
    @classmethod
    def _from_caller_if_local(cls, value: str | None) -> str | None:
        # "auto", "never" and a hub id name no folder here; a checkpoint or base folder does.
        if value is None or not Path(value).exists():
            return value
        return os.path.abspath(value)


def accelerate_config(spec: TrainLaunch) -> Path:
    """The user's config, else the recipe's own, else one CPU process."""
    if spec.accelerate_config is not None:
        path = spec.accelerate_config
    else:
        named = load_recipe(spec.recipe).distributed.accelerate_config
        path = resolve_path(named or DEFAULT_ACCELERATE_CONFIG)
    if not path.is_file():
        raise RecipeError(f"accelerate config {path}: no such file")
    return path


def _port(spec: TrainLaunch, config: Path) -> int | None:
    """The rendezvous port: the user's; on one machine with none set, 0 (accelerate picks a free
    one), so two launches on one box never meet on accelerate's default 29500."""
    if spec.main_process_port is not None:
        return spec.main_process_port
    cfg = yaml.safe_load(config.read_text()) or {}
    machines = spec.num_machines or int(cfg.get("num_machines") or 1)
    return 0 if machines == 1 and cfg.get("main_process_port") is None else None


def launch_command(spec: TrainLaunch) -> list[str]:
    """The exact command line: `accelerate launch [options] -m training.sft [recipe args]`."""
    config = accelerate_config(spec)
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--config_file", str(config)]
    for flag, value in (
        ("--num_processes", spec.num_processes),
        ("--num_machines", spec.num_machines),
        ("--machine_rank", spec.machine_rank),
        ("--main_process_ip", spec.main_process_ip),
        ("--main_process_port", _port(spec, config)),
    ):
        if value is not None:
            cmd += [flag, str(value)]
    cmd += ["-m", "training.sft", "--recipe", str(spec.recipe), "--resume", spec.resume]
    for flag, value in (
        ("--dataset", spec.dataset),
        ("--model", spec.model),
        ("--output-dir", spec.out),
        ("--max-steps", spec.max_steps),
        ("--precision", spec.precision),
        ("--micro-batch", spec.micro_batch),
        ("--grad-accum", spec.grad_accum),
    ):
        if value is not None:
            cmd += [flag, str(value)]
    return cmd + (["--check"] if spec.check else [])


def output_dir(spec: TrainLaunch) -> Path:
    return spec.out if spec.out is not None else resolve_path(load_recipe(spec.recipe).output_dir)


def check_dataset(spec: TrainLaunch) -> None:
    """Refuse, before any process starts, a dataset that is not a saved DatasetDict folder
    (a launched run would fail inside accelerate with a traceback per process)."""
    path = spec.dataset or resolve_path(load_recipe(spec.recipe).data.dataset)
    path = Path(path)
    if not path.is_dir():
        what = "is a file" if path.exists() else "does not exist"
        raise ValueError(f"dataset {path} {what}; expected a DatasetDict folder (save_to_disk)")
    if not (path / "dataset_dict.json").is_file():
        raise ValueError(
            f"dataset {path}: no dataset_dict.json; expected a DatasetDict folder (save_to_disk), "
            "e.g. one `pathwise export sft` wrote"
        )


def train(
    spec: TrainLaunch,
    *,
    log: Path | None = None,
    echo: Callable[[str], None] = print,
    env: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Launch, wait, and return OUT/run_summary.json; a failed launch is a RuntimeError with the
    log's tail. With `log`, the training output goes there instead of the terminal."""
    if not spec.check:  # --check reads no data: a GPU launch checked before the data exists
        check_dataset(spec)
    cmd = launch_command(spec)
    echo("$ " + shlex.join(cmd))
    # The project root on the path: `-m training.sft` then imports this checkout's code.
    run_env = {**os.environ, **(env or {})}
    run_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO_ROOT), run_env.get("PYTHONPATH", "")) if p
    )
    run_env.setdefault("TOKENIZERS_PARALLELISM", "false")
    if log is None:
        proc = subprocess.run(cmd, env=run_env, cwd=REPO_ROOT)
        tail = ""
    else:
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("w") as fh:
            fh.write("$ " + shlex.join(cmd) + "\n")
            fh.flush()
            proc = subprocess.run(
                cmd, stdout=fh, stderr=subprocess.STDOUT, env=run_env, cwd=REPO_ROOT
            )
        tail = "\n" + "\n".join(log.read_text().splitlines()[-30:])
    if proc.returncode != 0:
        where = f" (log: {log})" if log else ""
        raise RuntimeError(f"training failed with exit code {proc.returncode}{where}{tail}")
    if spec.check:
        return {"check": "passed", "command": cmd}
    summary = output_dir(spec) / SUMMARY_FILE
    if spec.machine_rank:
        # Only the world's first process writes the summary, on the first machine.
        return {"machine_rank": spec.machine_rank, "summary": str(summary)}
    if not summary.is_file():
        raise RuntimeError(f"training finished without writing {summary}")
    return json.loads(summary.read_text())
