"""Regenerate the committed trace fixture: two real runs of the runner on the same contracts.

    PYTHONPATH=. .venv/bin/python tests/helpers/viewer_runs/make_fixture.py

`teacher` is the scripted teacher; `perturbed` is the same rule top with a heuristic middle that
clicks the checkbox below the one it was asked for on its first check command (so the two runs
diverge at that step and the perturbed one fails) and wraps its typed actions in a code fence
(so the guards repair them). Both go through the real guards, executor and Chromium; only the
screenshots are re-encoded afterwards (same size, a 64-colour palette) to keep the fixture small.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from PIL import Image

from agent_runtime.middle.base import MiddleInput, MiddleOutput
from agent_runtime.middle.heuristic import HeuristicMiddle
from agent_runtime.runner.batch import run_batch
from agent_runtime.runner.config import RunConfig
from agent_runtime.runner.factories import WorkerResources
from agent_runtime.top.rule_top import RuleTop
from contracts.actions import ActionAST, ClickAction
from envs.miniwob.contracts import miniwob_contract, write_contracts

ROOT = Path(__file__).parent / "runs"
CONTRACTS = [("click-checkboxes", 101), ("enter-text", 100), ("click-button", 100)]


class PerturbedMiddle(HeuristicMiddle):
    name = "perturbed-heuristic"

    def __init__(self) -> None:
        self._slipped = False

    def propose(self, inp: MiddleInput) -> MiddleOutput:
        out = super().propose(inp)
        ast = ActionAST.model_validate_json(out.raw)
        act = ast.action
        if not self._slipped and inp.top.command.startswith("check") and act.type == "click":
            self._slipped = True
            wrong = ActionAST(action=ClickAction(target=act.target + 1), fallback=ast.fallback)
            return MiddleOutput(raw=wrong.to_json(), confidence=0.5)
        if act.type == "type":
            return MiddleOutput(raw=f"```json\n{out.raw}\n```", confidence=out.confidence)
        return out


class PerturbedResources(WorkerResources):
    def layers(self) -> tuple[RuleTop, PerturbedMiddle]:
        return RuleTop(), PerturbedMiddle()


def shrink(run_dir: Path) -> None:
    for png in sorted((run_dir / "screenshots").rglob("*.png")):
        with Image.open(png) as im:
            small = im.convert("RGB").quantize(colors=64)
        small.save(png, optimize=True)


def main() -> int:
    if ROOT.exists():
        shutil.rmtree(ROOT)
    contracts = [miniwob_contract(t, s) for t, s in CONTRACTS]
    write_contracts(contracts, ROOT / "contracts.jsonl")
    cfg = RunConfig()
    for name, res in (("teacher", WorkerResources), ("perturbed", PerturbedResources)):
        run_batch(contracts, ROOT / name, cfg, resources=lambda res=res: res(cfg), progress=False)
        shrink(ROOT / name)
    size = sum(p.stat().st_size for p in ROOT.rglob("*") if p.is_file())
    print(json.dumps({"fixture": str(ROOT), "bytes": size}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
