"""Executor overhead on MiniWoB++: ours (labels, events, fallbacks) vs a bare Playwright loop.

Both loops run the same scripted solutions on the same tasks and seeds in the same browser,
interleaved episode by episode, so machine noise hits both alike. A "step" is one
observation plus one action: ours = Executor.observe (set-of-mark labels, optionally the
labeled screenshot) + Executor.execute; bare = the idiomatic Playwright call on a native
selector (page.click / page.fill), optionally preceded by page.screenshot(path=...).
A "reset" is MiniWoBTask.setup vs the same start calls issued by hand.

    .venv/bin/python -m benchmarks.bench_executor [--seeds 20]   # about 2 minutes

Writes benchmarks/results/executor.{json,md}.
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_runtime.browser.executor import Executor
from agent_runtime.browser.launch import BrowserSession
from benchmarks.harness import parse, side_by_side, spread, write_results
from contracts.actions import ActionAST, ClickAction, TypeAction
from contracts.observation import Observation
from envs.miniwob.task import DEFAULT_EPISODE_MAX_MS, MiniWoBServer, MiniWoBTask

TASKS = ("click-button", "enter-text", "login-user")

_START = """([seed, ms]) => { Math.seedrandom(seed); core.EPISODE_MAX_TIME = ms;
  core.startEpisodeReal(); }"""
# The bare loop reads its goal itself: with the arms interleaved it may run first.
_GOAL = """() => { const u = core.getUtterance();
  return (u && typeof u === 'object') ? u.utterance : u; }"""


def quoted(goal: str) -> list[str]:
    return re.findall(r'"([^"]*)"', goal)


# Each plan: list of steps; a step is (ours: obs -> ActionAST, bare: page -> None).
def plan(task: str, goal: str) -> list[tuple[Callable[[Observation], ActionAST], Any]]:
    q = quoted(goal)

    def click_where(pred: Callable[[Any], bool]) -> Callable[[Observation], ActionAST]:
        return lambda o: ActionAST(
            action=ClickAction(target=next(e.label for e in o.labels if pred(e)))
        )

    def type_where(pred: Callable[[Any], bool], text: str) -> Callable[[Observation], ActionAST]:
        return lambda o: ActionAST(
            action=TypeAction(target=next(e.label for e in o.labels if pred(e)), text=text)
        )

    if task == "click-button":
        return [
            (
                click_where(lambda e: e.role == "button" and e.text == q[0]),
                lambda p: p.click(f'button:text-is("{q[0]}")', timeout=2000),
            )
        ]
    if task == "enter-text":
        return [
            (type_where(lambda e: e.role == "textbox", q[0]), lambda p: p.fill("#tt", q[0])),
            (click_where(lambda e: e.text == "Submit"), lambda p: p.click("#subbtn")),
        ]
    if task == "login-user":
        return [
            (type_where(lambda e: e.text == "Username", q[0]), lambda p: p.fill("#username", q[0])),
            (type_where(lambda e: e.text == "Password", q[1]), lambda p: p.fill("#password", q[1])),
            (click_where(lambda e: e.text == "Login"), lambda p: p.click("#subbtn")),
        ]
    raise ValueError(task)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    args = parse(ap, "executor")
    t: dict[str, list[float]] = {}

    def add(key: str, ms: float) -> None:
        t.setdefault(key, []).append(ms)

    fails = {"ours": 0, "bare": 0}
    tmp = Path(tempfile.mkdtemp(prefix="bench-exec-"))
    # One round = one (seed, screenshot or not) episode through each loop.
    episodes = [(seed, shot) for seed in range(args.seeds) for shot in (False, True)]
    with MiniWoBServer() as server, BrowserSession() as session:
        page = session.page
        ex = Executor(page)
        for task_name in TASKS:
            url = f"{server.url}/miniwob/{task_name}.html"
            reuse = MiniWoBTask(task_name, base_url=server.url, reuse_page=True)
            reload_ = MiniWoBTask(task_name, base_url=server.url, reuse_page=False)
            reuse.setup(page, 0)  # warm the page cache and JIT for both loops

            def ours(r: int, task_name=task_name, reuse=reuse, reload_=reload_) -> None:
                seed, shot = episodes[r]
                t0 = time.perf_counter()
                reload_.setup(page, seed)
                add("reset_reload_ours", _ms(t0))
                t0 = time.perf_counter()
                steps = plan(task_name, reuse.setup(page, seed).goal)
                add("reset_reuse_ours", _ms(t0))
                for i, (policy, _) in enumerate(steps):
                    t0 = time.perf_counter()
                    obs = ex.observe(tmp / f"{task_name}-{seed}-{i}.png" if shot else None)
                    ex.execute(policy(obs))
                    if i == len(steps) - 1:
                        ex.flush()  # the last screenshot is on disk inside the timing
                    add(f"step_{'shot' if shot else 'noshot'}_ours", _ms(t0))
                fails["ours"] += reuse.validate(page).raw_reward != 1.0
                ex.events.drain()

            def bare(r: int, task_name=task_name, url=url) -> None:
                seed, shot = episodes[r]
                t0 = time.perf_counter()
                page.goto(url, wait_until="load")
                page.wait_for_function("() => core.cover_div !== null")
                page.evaluate(_START, [seed, DEFAULT_EPISODE_MAX_MS])
                page.wait_for_function("() => WOB_TASK_READY")
                page.evaluate(_GOAL)
                add("reset_reload_bare", _ms(t0))
                t0 = time.perf_counter()
                page.evaluate(_START, [seed, DEFAULT_EPISODE_MAX_MS])
                page.wait_for_function("() => WOB_TASK_READY")
                goal = page.evaluate(_GOAL)
                add("reset_reuse_bare", _ms(t0))
                for i, (_, action) in enumerate(plan(task_name, goal)):
                    t0 = time.perf_counter()
                    if shot:
                        page.screenshot(path=tmp / f"bare-{task_name}-{seed}-{i}.png")
                    action(page)
                    add(f"step_{'shot' if shot else 'noshot'}_bare", _ms(t0))
                fails["bare"] += page.evaluate("() => WOB_RAW_REWARD_GLOBAL") != 1

            side_by_side({"ours": ours, "bare": bare}, len(episodes))
        ex.close()

    res = {k: spread(v, digits=2) for k, v in sorted(t.items())}
    ratios = {}
    for key in ("step_noshot", "step_shot", "reset_reuse", "reset_reload"):
        ratios[key] = round(res[f"{key}_ours"]["median"] / res[f"{key}_bare"]["median"], 3)
    out = {
        "tasks": list(TASKS),
        "seeds": args.seeds,
        "unit": "milliseconds",
        "timings": res,
        "ratio_ours_over_bare": ratios,
        "episodes_not_solved": fails,
    }
    lines = [
        "# Executor vs bare Playwright on MiniWoB++",
        "",
        f"Tasks {', '.join(TASKS)}; seeds 0-{args.seeds - 1}; interleaved in one browser.",
        "",
        "| measure | ours median | ours p95 | bare median | bare p95 | ours/bare |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for key, r in ratios.items():
        o, b = res[f"{key}_ours"], res[f"{key}_bare"]
        lines.append(
            f"| {key} (ms) | {o['median']} | {o['p95']} | {b['median']} | {b['p95']} | {r} |"
        )
    lines += [
        "",
        "Bare clicks are Playwright's actionability-checked `page.click` (it polls animation",
        "frames until the element is stable, ~35 ms); ours checks the hit point in the same",
        "round trip as the lookup and clicks with the mouse, which is why ours can be faster",
        "without a screenshot. With a screenshot, ours also draws the labels (Pillow, on a",
        "worker thread; the last step of each episode waits for the file).",
        "",
        f"Episodes not solved (raw reward != 1): {fails}",
    ]
    write_results("executor", out, "\n".join(lines), overwrite=args.overwrite,
                  results=args.results)  # fmt: skip


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


if __name__ == "__main__":
    main()
