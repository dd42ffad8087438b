"""Many environments in one Node child, stepped by one call: the form to train on.

Arrays in and out (envs x agents x ...). An environment whose episode ended is started again
on the next seed of its stream within the same call (Gymnasium's same-step autoreset): the
returned observation is the new episode's, and the list of episodes that ended gives each
one's outcome, final state hash and final observation.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ._bridge import Bridge


class HillmindVectorEnv:
    def __init__(self, num_envs: int, level: str = "control", opponent: str | None = "heuristic", reward: str = "match", scenario_start: bool = False, seed: int = 0, bridge_options: dict[str, Any] | None = None):
        self.bridge = Bridge({"level": level, "envs": num_envs, "opponent": opponent, "reward": reward, "scenarioStart": scenario_start}, **(bridge_options or {}))
        self.num_envs = num_envs
        self.agents: list[str] = list(self.bridge.agents)
        self._next_seed = seed

    def _seeds(self, n: int) -> list[int]:
        seeds = list(range(self._next_seed, self._next_seed + n))
        self._next_seed += n
        return seeds

    def reset(self, seed: int | None = None) -> np.ndarray:
        if seed is not None:
            self._next_seed = seed
        return self.bridge.reset(self._seeds(self.num_envs))

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        obs, rewards, terminations, ends = self.bridge.step(actions)
        if ends:
            for e in ends:
                e["final_observation"] = obs[e["env"]].copy()
            finished = [e["env"] for e in ends]
            obs = self.bridge.reset(self._seeds(len(finished)), envs=finished)
        return obs, rewards, terminations, ends

    def close(self) -> None:
        self.bridge.close()
