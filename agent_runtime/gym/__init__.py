"""Pathwise environments as gymnasium.Env (BrowserGym-style loops without the runner).

Importing this package registers every id: `gymnasium.make("pathwise/shop-v0")`,
`gymnasium.make("pathwise/miniwob.click-button-v0")`, `gymnasium.make("pathwise/contract-v0")`.
"""

from agent_runtime.gym.env import PathwiseEnv
from agent_runtime.gym.registration import register_all

ENV_IDS = register_all()

__all__ = ["ENV_IDS", "PathwiseEnv"]
