"""PettingZoo parallel environments over the Node simulation.

- HillmindControlEnv: per agent the 20-number observation and a Box(5) action (move, turn,
  strafe in [-1, 1]; dash and fire in [0, 1], on above 0.5), stepped at the skills' 12.5 Hz.
  With an opponent team id (any Hillmind team or variant: heuristic, bt, llm, ...) the
  agents are blue's two; with opponent=None all four (self-play).
- HillmindStrategistEnv: per blue agent Discrete(4) skills (navigate, combat, secure,
  retreat) at the strategists' 2 Hz; the trained skills run as ONNX inside Node; the
  observation is the discretised situation as 20 numbers.

Both take reset(seed, options) and play the same match as `npm run match` for the same seed
and actions. An episode a team wins is terminated; one the time limit ends (a draw) is
truncated. An ended episode's infos carry the outcome and the final state hash.

PettingZoo's module form: ``hillmind.control_v1`` and ``hillmind.strategist_v1`` each give
``parallel_env(**kwargs)`` and ``env(**kwargs)`` (the AEC form, by PettingZoo's conversion).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from ._bridge import Bridge

_SEED_SPAN = 2**32


def action_space(level: str) -> spaces.Space:
    """One agent's action: the control level's Box(5), or the strategist level's skill index."""
    if level == "strategist":
        return spaces.Discrete(4)
    return spaces.Box(np.array([-1, -1, -1, 0, 0], dtype=np.float32), np.array([1, 1, 1, 1, 1], dtype=np.float32), dtype=np.float32)


class _HillmindParallelEnv(ParallelEnv):
    metadata: dict[str, Any] = {"render_modes": [], "is_parallelizable": True}
    render_mode = None

    def __init__(self, level: str, opponent: str | None, reward: str, scenario_start: bool, bridge_options: dict[str, Any] | None):
        self._bridge = Bridge({"level": level, "envs": 1, "opponent": opponent, "reward": reward, "scenarioStart": scenario_start}, **(bridge_options or {}))
        self.possible_agents: list[str] = list(self._bridge.agents)
        self.agents: list[str] = []
        self._observation_space = spaces.Box(-1.0, 1.0, shape=(self._bridge.obs_size,), dtype=np.float32)
        self._rng = np.random.default_rng()
        self.observation_spaces = {a: self._observation_space for a in self.possible_agents}
        self.action_spaces = {a: action_space(level) for a in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _observations(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        return {a: obs[0, i] for i, a in enumerate(self.possible_agents) if a in self.agents}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            episode_seed = int(seed) % _SEED_SPAN
        else:
            episode_seed = int(self._rng.integers(_SEED_SPAN))
        obs = self._bridge.reset([episode_seed])
        self.agents = list(self.possible_agents)
        return self._observations(obs), {a: {"seed": episode_seed} for a in self.agents}

    def _encode(self, actions: dict[str, Any]) -> np.ndarray:
        raise NotImplementedError

    def step(self, actions: dict[str, Any]):
        obs, rewards, terminations, truncations, ends = self._bridge.step(self._encode(actions))
        live = list(self.agents)
        observations = self._observations(obs)
        reward = {a: float(rewards[0, self.possible_agents.index(a)]) for a in live}
        terms = {a: bool(terminations[0, self.possible_agents.index(a)]) for a in live}
        truncs = {a: bool(truncations[0, self.possible_agents.index(a)]) for a in live}
        end = ends[0] if ends else None
        infos: dict[str, dict[str, Any]] = {a: ({"outcome": end["outcome"], "hash": end["hash"], "ticks": end["ticks"]} if end else {}) for a in live}
        self.agents = [a for a in live if not (terms[a] or truncs[a])]
        return observations, reward, terms, truncs, infos

    def close(self) -> None:
        self._bridge.close()


class HillmindControlEnv(_HillmindParallelEnv):
    """Moment-to-moment control of each agent (see the module's docstring)."""

    metadata = {**_HillmindParallelEnv.metadata, "name": "hillmind_control_v1"}

    def __init__(self, opponent: str | None = "heuristic", reward: str = "match", scenario_start: bool = False, bridge_options: dict[str, Any] | None = None):
        super().__init__("control", opponent, reward, scenario_start, bridge_options)

    def _encode(self, actions: dict[str, Any]) -> np.ndarray:
        out = np.zeros((1, len(self.possible_agents), 5), dtype=np.float64)
        for i, a in enumerate(self.possible_agents):
            if a in actions and a in self.agents:
                out[0, i] = np.asarray(actions[a], dtype=np.float64)
        return out


class HillmindStrategistEnv(_HillmindParallelEnv):
    """A skill per blue agent at the strategists' rate (see the module's docstring)."""

    metadata = {**_HillmindParallelEnv.metadata, "name": "hillmind_strategist_v1"}

    def __init__(self, opponent: str = "bt", bridge_options: dict[str, Any] | None = None):
        super().__init__("strategist", opponent, "match", False, bridge_options)
        self.skills: list[str] = list(self._bridge.spec["skills"])

    def _encode(self, actions: dict[str, Any]) -> np.ndarray:
        # Sent as given (2.5 stays 2.5): the bridge refuses what is not a skill rather than round it to one.
        out = np.zeros((1, len(self.possible_agents), 1), dtype=np.float64)
        for i, a in enumerate(self.possible_agents):
            out[0, i, 0] = actions.get(a, 0) if a in self.agents else 0
        return out

