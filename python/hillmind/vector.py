"""Many matches in one Node child, stepped by one call: the form to train on, as a Gymnasium
vector environment (``gymnasium.vector.VectorEnv``).

Each sub-environment is one agent of one match (parameter sharing, as SuperSuit's
``pettingzoo_env_to_vec_env`` makes of a PettingZoo environment): ``num_envs`` is matches x
agents, observations are ``(num_envs, 20)``, actions ``(num_envs, 5)`` at the control level
and ``(num_envs,)`` skill indices at the strategist level, rewards, terminations and
truncations ``(num_envs,)``. The agents of a match end together: terminated by a win,
truncated by the time limit.

A match that ended is started again on the next seed of its stream within the same call
(Gymnasium's same-step autoreset): the returned observation is the new episode's, and
``infos["final_obs"]`` and ``infos["final_info"]`` (outcome, final state hash, ticks) hold
the ended one's, with their ``_final_obs`` and ``_final_info`` masks.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ._bridge import Bridge
from .envs import action_space

_SEED_SPAN = 2**32


class HillmindVectorEnv(VectorEnv):
    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, matches: int, level: str = "control", opponent: str | None = "heuristic", reward: str = "match", scenario_start: bool = False, seed: int = 0, bridge_options: dict[str, Any] | None = None):
        self.bridge = Bridge({"level": level, "envs": matches, "opponent": opponent, "reward": reward, "scenarioStart": scenario_start}, **(bridge_options or {}))
        self.matches = matches
        self.agents: list[str] = list(self.bridge.agents)
        self.num_envs = matches * len(self.agents)
        self.single_observation_space = spaces.Box(-1.0, 1.0, shape=(self.bridge.obs_size,), dtype=np.float32)
        self.single_action_space = action_space(level)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._next_seed = seed
        self._seeds = np.zeros(matches, dtype=np.int64)

    def _draw_seeds(self, n: int) -> list[int]:
        seeds = [s % _SEED_SPAN for s in range(self._next_seed, self._next_seed + n)]
        self._next_seed += n
        return seeds

    def _per_agent(self, per_match: np.ndarray) -> np.ndarray:
        return np.repeat(per_match, len(self.agents))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every match: on seeds seed, seed + 1, ... or (seed None) the next of the stream."""
        if seed is not None:
            if not isinstance(seed, (int, np.integer)):
                raise ValueError(f"seed is one whole number (match i plays seed + i), got {seed!r}")
            self._next_seed = int(seed)
        self._seeds[:] = self._draw_seeds(self.matches)
        obs = self.bridge.reset(self._seeds.tolist())
        return obs.reshape(self.num_envs, -1), {"seed": self._per_agent(self._seeds), "_seed": np.ones(self.num_envs, dtype=bool)}

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        array = np.asarray(actions, dtype=np.float64)
        if array.size != self.num_envs * self.bridge.action_size:
            raise ValueError(f"actions must have shape {self.action_space.shape} ({self.matches} matches x {len(self.agents)} agents), got {array.shape}")
        obs, rewards, terminations, truncations, ends = self.bridge.step(array.reshape(self.matches, len(self.agents), self.bridge.action_size))
        infos: dict[str, Any] = {}
        if ends:
            finished = [e["env"] for e in ends]
            for end in ends:
                for a in range(len(self.agents)):
                    final = {"outcome": end["outcome"], "hash": end["hash"], "ticks": end["ticks"], "seed": int(self._seeds[end["env"]])}
                    infos = self._add_info(infos, {"final_obs": obs[end["env"], a].copy(), "final_info": final}, end["env"] * len(self.agents) + a)
            self._seeds[finished] = self._draw_seeds(len(finished))
            obs = self.bridge.reset(self._seeds[finished].tolist(), envs=finished)
        return obs.reshape(self.num_envs, -1), rewards.reshape(-1).astype(np.float64), terminations.reshape(-1), truncations.reshape(-1), infos

    def close_extras(self, **kwargs: Any) -> None:
        self.bridge.close()
