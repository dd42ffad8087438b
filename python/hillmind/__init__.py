"""Hillmind from Python: the same simulation as the TypeScript product, as PettingZoo environments.

``hillmind.control_v1`` and ``hillmind.strategist_v1`` give PettingZoo's ``parallel_env()`` and
``env()``; ``HillmindVectorEnv`` is a Gymnasium vector environment to train on.
The environments run in a Node child process (this checkout's ``src/cli/bridge.ts``) and are
stepped over a small binary protocol on its standard input and output; see ``_bridge.py``.
"""
from . import control_v1, strategist_v1
from ._bridge import Bridge, BridgeClosed, BridgeError, BridgeTimeout, PROTOCOL
from .envs import HillmindControlEnv, HillmindStrategistEnv
from .vector import HillmindVectorEnv

__all__ = [
    "Bridge",
    "BridgeClosed",
    "BridgeError",
    "BridgeTimeout",
    "HillmindControlEnv",
    "HillmindStrategistEnv",
    "HillmindVectorEnv",
    "PROTOCOL",
    "control_v1",
    "strategist_v1",
]
