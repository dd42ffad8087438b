"""Hillmind from Python: the same simulation as the TypeScript product, as PettingZoo environments.

The environments run in a Node child process (this checkout's ``src/cli/bridge.ts``) and are
stepped over a small binary protocol on its standard input and output; see ``_bridge.py``.
"""
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
]
