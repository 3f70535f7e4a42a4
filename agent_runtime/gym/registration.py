"""Gymnasium ids of every Pathwise environment, under the `pathwise/` namespace.

Entry points are strings, so registering imports no agent code: the environment class lives in
agent_runtime.gym (it compiles each Action AST through the guards, which envs never import).
"""

from __future__ import annotations

ENTRY_POINT = "agent_runtime.gym.env:PathwiseEnv"
SITE_IDS = ("shop", "directory", "booking", "docs")


def register_all() -> list[str]:
    """Register pathwise/contract-v0, pathwise/<site>-v0 and pathwise/miniwob.<task>-v0."""
    import gymnasium

    from envs.miniwob.task import available_tasks

    ids = ["pathwise/contract-v0"]
    specs: list[tuple[str, dict[str, object]]] = [("pathwise/contract-v0", {})]
    for site in SITE_IDS:
        specs.append((f"pathwise/{site}-v0", {"site": site}))
    for task in available_tasks():
        specs.append((f"pathwise/miniwob.{task}-v0", {"miniwob_task": task}))
    ids = []
    for env_id, kwargs in specs:
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=ENTRY_POINT, kwargs=kwargs)
        ids.append(env_id)
    return ids
