"""The OdoBot experiment as resumable steps: record, build, run (OdoBot Section VI's study).

Demonstrations run on one seeded LMS world (one instance per template, its first phrasing); the
students' training instances on that world and on more training seeds (one instance per
template each, the other training phrasings); held-out instances on another seed drawn from the
other half of every name list, with a banner that shifts every XPath, phrasings of their own and
parameter values no demonstration or training instance used. Every step writes one file per
unit of work, so a rerun skips what is done.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from tqdm import tqdm

from envs.lms import LmsEnv, TaskInstance, generate_world, make_instances
from envs.lms.demonstrator import DemoError, demonstrate
from envs.webapp import load_model_file, write_model_file
from odobot.capture import Recorder
from odobot.events import Trajectory
from odobot.graph import save_graph
from odobot.model import build_model

CONFIG = "config.json"
STUDENTS = "students"  # OUT/students/: the students' training runs, datasets, adapters, models


def student_model(out: Path, agent: str) -> Path:
    """Where `pathwise odobot train` leaves a student ("odobot" or "baseline"), merged (its
    stage folder's `merged/`)."""
    return out / STUDENTS / agent / "merged"


class OdoConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    demo_seed: int = 11
    test_seed: int = 12
    # Worlds of the students' training instances, one instance per template each, in phrasing
    # k of the k-th world (the first is the demonstrations' world).
    train_seeds: list[int] = [11, 13, 14]
    limit: int | None = None  # first N templates only (quick runs); None = all 60
    matcher: Literal["auto", "hybrid", "embedding", "lexical"] = "auto"  # auto = hybrid
    # The answerer picks the similar trajectory among the matcher's top k (the paper: an LLM
    # among the embedding's top 15; k 5 holds the right one for 98% of the training phrasings).
    pick_k: int = 5
    # The full-observation baseline: its interface format (agent_runtime/middle/format.py) and
    # step cap (the longest signed-in demonstration takes 7 steps).
    middle_format: Literal["paper", "text-first", "echo"] = "echo"
    max_steps: int = 12


def load_config(out: Path, default: OdoConfig | None = None) -> OdoConfig:
    path = out / CONFIG
    if path.is_file():
        return load_model_file(path, OdoConfig)
    cfg = default or OdoConfig()
    write_model_file(path, cfg)
    return cfg


def demo_id(template_id: str) -> str:
    """The trajectory id of a template's demonstration."""
    return f"demo-{template_id}"


def demo_instances(cfg: OdoConfig) -> tuple[Any, list[TaskInstance]]:
    world = generate_world(cfg.demo_seed, banner=False)
    return world, make_instances(world, cfg.demo_seed, prefix="demo")[: cfg.limit]


def training_instances(cfg: OdoConfig) -> list[tuple[Any, list[TaskInstance]]]:
    """(world, instances) per training seed: the students learn from these, never the held-out."""
    out = []
    for k, seed in enumerate(cfg.train_seeds):
        world = generate_world(seed, banner=False)
        # Another draw than the demonstrations' (their seed is the first world's seed).
        insts = make_instances(world, seed + 1000, prefix=f"train{k}", which="train", variant=k)
        out.append((world, insts[: cfg.limit]))
    return out


def heldout_instances(cfg: OdoConfig) -> tuple[Any, list[TaskInstance]]:
    """Another world from the held-out name lists, with the held-out phrasings; every value a
    demonstration or a training instance used is excluded from the new instances."""
    seen = demo_instances(cfg)[1] + [i for _, insts in training_instances(cfg) for i in insts]
    avoid = {v for d in seen for k, v in d.params.items() if k not in ("username", "password")}
    world = generate_world(cfg.test_seed, banner=True, names="heldout")
    insts = make_instances(world, cfg.test_seed, avoid, prefix="test", which="heldout")
    return world, insts[: cfg.limit]


LMS_VIEWPORT = {"width": 1280, "height": 4000}


@contextmanager
def lms_browser(world: Any) -> Iterator[tuple[LmsEnv, Any, Recorder]]:
    from agent_runtime.browser.launch import BrowserSession

    # A tall window: the demonstrator and the full-observation baseline see a whole LMS list at
    # once (the labels cover only what is on screen) instead of scrolling to an entry far down.
    with LmsEnv(world) as env, BrowserSession(viewport=LMS_VIEWPORT) as session:
        page = session.page
        yield env, session, Recorder(page, secrets=env.secret_store())


def _fresh(env: LmsEnv, session: Any) -> str:
    env.reset()
    session.context.clear_cookies()
    return env.url + "/login"


def signed_in(env: LmsEnv, session: Any) -> str:
    """A fresh world and a session signed in by the harness (as a password manager would), so
    no credential ever reaches a prompt, a model or a training record; returns the dashboard."""
    url = _fresh(env, session)
    me = env.world.me
    resp = session.context.request.post(
        env.url + "/api/v1/login", data={"username": me.login, "password": me.password}
    )
    if not resp.ok:
        raise RuntimeError(f"signing in to {url} failed: HTTP {resp.status}")
    return env.url + "/dashboard"


def record(out: Path, cfg: OdoConfig, progress: bool = True) -> list[Path]:
    """One demonstration per template through the executor; trajectories as JSON files."""
    world, insts = demo_instances(cfg)
    folder = out / "demos"
    folder.mkdir(parents=True, exist_ok=True)
    # A finished demonstration (.json) or a recorded failure (.failed.txt) is not redone.
    done = {p.name.split(".")[0] for p in folder.glob("*.*") if p.suffix in (".json", ".txt")}
    todo = [i for i in insts if i.task_id not in done]
    if todo:
        with lms_browser(world) as (env, session, rec):
            for inst in tqdm(todo, desc="demonstrations", disable=not progress):
                url = _fresh(env, session)
                rec.begin(inst.task_id)
                rec.goto(url)
                try:
                    demonstrate(rec, inst)
                except DemoError as e:
                    # The scripted user could not finish: the model is built without this
                    # template, its held-out tasks then fail with "no target vertex", and the
                    # report counts the demonstration as failed; the other templates go on.
                    (folder / f"{inst.task_id}.failed.txt").write_text(f"{e}\n")
                    tqdm.write(f"demonstration {inst.task_id} failed: {e}")
                    continue
                ok = env.check(inst).ok
                traj = Trajectory(
                    id=inst.task_id,
                    task_id=inst.task_id,
                    events=rec.events,
                    snapshots=rec.snapshots,
                    ok=ok,
                )
                write_model_file(folder / f"{inst.task_id}.json", traj, overwrite=True)
    return [folder / f"{i.task_id}.json" for i in insts if (folder / f"{i.task_id}.json").is_file()]


def failed_demos(out: Path) -> dict[str, str]:
    """Template id -> why its scripted demonstration stopped (read back for the report)."""
    return {
        p.name.removesuffix(".failed.txt"): p.read_text().strip()
        for p in sorted((out / "demos").glob("*.failed.txt"))
    }


def load_trajectories(out: Path) -> list[Trajectory]:
    files = sorted((out / "demos").glob("*.json"))
    if not files:
        raise FileNotFoundError(f"{out / 'demos'}: no demonstrations; run `pathwise odobot build`")
    return [load_model_file(f, Trajectory) for f in files]


def build(out: Path, counter: Any) -> dict[str, Any]:
    """Graph model + annotations; counts the description prompts a describer would cost."""
    t0 = time.perf_counter()
    g, cost, stats = build_model(load_trajectories(out))
    save_graph(g, out / "model" / "graph.json")
    p = sum(counter.prompt([{"role": "user", "content": x}]) for x in cost.prompts)
    c = sum(counter.completion(x) for x in cost.completions)
    info = {
        "stats": stats.model_dump(),
        "construction_prompt_tokens": p,
        "construction_completion_tokens": c,
        "construction_tokens": p + c,
        "build_s": round(time.perf_counter() - t0, 2),
    }
    (out / "model" / "build.json").write_text(json.dumps(info, indent=1) + "\n")
    return info
