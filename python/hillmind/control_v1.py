"""hillmind_control_v1 as PettingZoo's environment modules are: `parallel_env()` and `env()`.

    from hillmind import control_v1
    env = control_v1.parallel_env(opponent=...)   # keyword arguments as HillmindControlEnv's
"""
from __future__ import annotations

from typing import Any

from pettingzoo.utils.conversions import parallel_to_aec

from .envs import HillmindControlEnv


def parallel_env(**kwargs: Any) -> HillmindControlEnv:
    return HillmindControlEnv(**kwargs)


def env(**kwargs: Any):
    """The AEC form (agents act in turn), by PettingZoo's own conversion of the parallel one."""
    return parallel_to_aec(parallel_env(**kwargs))
