"""hillmind_strategist_v1 as PettingZoo's environment modules are: `parallel_env()` and `env()`.

    from hillmind import strategist_v1
    env = strategist_v1.parallel_env(opponent=...)   # keyword arguments as HillmindStrategistEnv's
"""
from __future__ import annotations

from typing import Any

from pettingzoo.utils.conversions import parallel_to_aec

from .envs import HillmindStrategistEnv


def parallel_env(**kwargs: Any) -> HillmindStrategistEnv:
    return HillmindStrategistEnv(**kwargs)


def env(**kwargs: Any):
    """The AEC form (agents act in turn), by PettingZoo's own conversion of the parallel one."""
    return parallel_to_aec(parallel_env(**kwargs))
