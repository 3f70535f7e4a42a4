"""`pathwise guards check`, debugging a middle model: WebRider Appendix H, Tables 44-46."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from common.cli import fail

guards_app = typer.Typer(help="Guard compiler tools (WebRider Tables 44-46).", no_args_is_help=True)


def _load_model(path: Path, model: Any, what: str) -> Any:
    """Read and validate one JSON file; any problem exits 2 naming the file and field."""
    from common.loading import LoadError, load_json, validate

    try:
        return validate(model, load_json(path, f"{what} file"), f"{path}: invalid {what}")
    except LoadError as e:
        fail(e)


@guards_app.command("check")
def check(
    observation: Path = typer.Option(..., "--observation", help="Observation JSON file."),
    history: Path | None = typer.Option(None, "--history", help="RecentHistory JSON file."),
    geographic: bool = typer.Option(False, "--geographic", help="Allow maps (place tasks)."),
    allow_sensitive: list[str] = typer.Option(
        [],
        "--allow-sensitive",
        help="Sensitive input the contract allows: credentials, payment or personal "
        "(repeatable; the contract's allow_sensitive). 'all' applies no input policy, as for "
        "page-instructed MiniWoB tasks. Default: none allowed.",
    ),
) -> None:
    """Compile raw middle outputs from stdin (one JSON string literal per line).

    Prints one JSON line per input: action, fallback, labels, rejection, detail.
    A line that is not a JSON string literal is compiled as raw text and labeled
    `input:raw_text`.
    """
    from agent_runtime.guards.compiler import compile_action
    from contracts.history import RecentHistory
    from contracts.observation import Observation

    kinds = {k.strip() for v in allow_sensitive for k in v.split(",") if k.strip()}
    unknown = kinds - {"credentials", "payment", "personal", "all"}
    if unknown:
        fail(
            f"--allow-sensitive: unknown kind {sorted(unknown)[0]!r} "
            "(credentials, payment, personal or all)"
        )
    allow = None if "all" in kinds else kinds
    obs = _load_model(observation, Observation, "observation")
    if not obs.state_hash:
        obs = obs.with_state_hash()
    hist = _load_model(history, RecentHistory, "history") if history else RecentHistory()
    out = sys.stdout
    for line in sys.stdin:
        line = line.rstrip("\r\n")
        if not line.strip():
            continue
        raw: str
        raw_text = False
        try:
            decoded = json.loads(line)
        except (ValueError, RecursionError):
            decoded = None
        if isinstance(decoded, str):
            raw = decoded
        else:
            raw, raw_text = line, True
        row = compile_action(raw, obs, hist, geographic=geographic, allow_sensitive=allow).to_line()
        if raw_text:
            row["labels"].append("input:raw_text")
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
        out.flush()


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    app.add_typer(guards_app, name="guards")
