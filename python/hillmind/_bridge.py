"""The Python end of the wire to the Node simulation (src/train/bridgeServer.ts).

Frames are a little-endian u32 length, then the payload, whose first byte is the operation:
HELLO (JSON options -> JSON spec), RESET (JSON seeds -> observations), STEP (float64 actions ->
observations, rewards, terminations and the episodes that ended), CLOSE. Arrays travel raw
(read by numpy in place): actions as float64, the simulation's precision, observations and
rewards as float32; the rest as JSON. Every call has a timeout; a child that died
is a BridgeClosed naming its exit code and the end of its standard error, never a hang.
"""
from __future__ import annotations

import json
import os
import selectors
import struct
import subprocess
import threading
import weakref
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

PROTOCOL = 1
# The observation and action specs this package's spaces describe (src/sim/observeSpec.ts, actions.ts).
OBS_SPEC_VERSION = 1
ACTION_SPEC_VERSION = 1
OP_HELLO, OP_RESET, OP_STEP, OP_CLOSE, OP_ERROR = 1, 2, 3, 4, 255


class BridgeError(RuntimeError):
    """The simulation refused a call; the message says why."""


class BridgeClosed(BridgeError):
    """The Node child is gone."""


class BridgeTimeout(BridgeError):
    """The Node child did not answer in time."""


def repository_root() -> Path:
    """The checkout this package sits in (python/hillmind -> the repository root)."""
    return Path(__file__).resolve().parent.parent.parent


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        try:
            process.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class Bridge:
    """One Node child serving `options['envs']` environments of one level."""

    def __init__(self, options: dict[str, Any], *, root: str | os.PathLike[str] | None = None, node: str = "node", timeout: float = 30.0, start_timeout: float = 120.0):
        self.root = Path(root) if root else repository_root()
        entry = self.root / "src" / "cli" / "bridge.ts"
        if not entry.exists():
            raise BridgeError(f"no Hillmind checkout at {self.root} (expected {entry}); pass root= or install the package from a checkout")
        self.timeout = timeout
        self._process = subprocess.Popen(
            [node, "--import", "tsx", str(entry)],
            cwd=self.root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._stderr: deque[str] = deque(maxlen=40)
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._process.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
        self._buffer = bytearray()
        # Garbage collection ends the child too.
        self._finalizer = weakref.finalize(self, _stop, self._process)
        spec = self._call(OP_HELLO, json.dumps({"protocol": PROTOCOL, **options}).encode(), timeout=start_timeout)
        self.spec: dict[str, Any] = json.loads(bytes(spec))
        versions = (self.spec["obsSpecVersion"], self.spec["actionSpecVersion"])
        if versions != (OBS_SPEC_VERSION, ACTION_SPEC_VERSION):
            self.close()
            raise BridgeError(
                f"the simulation observes with spec v{versions[0]} and acts with spec v{versions[1]}; this package was written for "
                f"v{OBS_SPEC_VERSION} and v{ACTION_SPEC_VERSION}: install the package from the same checkout"
            )
        self.envs: int = self.spec["envs"]
        self.agents: list[str] = self.spec["agents"]
        self.obs_size: int = self.spec["obsSize"]
        self.action_size: int = self.spec["actionSize"]

    def _drain_stderr(self) -> None:
        for line in self._process.stderr:  # type: ignore[union-attr]
            self._stderr.append(line.decode("utf8", "replace").rstrip())

    def _dead(self) -> BridgeClosed:
        code = self._process.poll()
        tail = "\n".join(self._stderr) or "(nothing on its standard error)"
        return BridgeClosed(f"the Node simulation exited (code {code}):\n{tail}")

    def _read_exactly(self, n: int, deadline: float) -> bytes:
        import time

        while len(self._buffer) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BridgeTimeout(f"the Node simulation did not answer within {self.timeout:g} s")
            if not self._selector.select(timeout=left):
                continue
            chunk = os.read(self._process.stdout.fileno(), 1 << 20)  # type: ignore[union-attr]
            if not chunk:
                self._process.wait(timeout=5)
                raise self._dead()
            self._buffer += chunk
        out = bytes(self._buffer[:n])
        del self._buffer[:n]
        return out

    def _call(self, op: int, payload: bytes, timeout: float | None = None) -> memoryview:
        import time

        if self._process.poll() is not None:
            raise self._dead()
        try:
            self._process.stdin.write(struct.pack("<IB", len(payload) + 1, op) + payload)  # type: ignore[union-attr]
            self._process.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError):
            self._process.wait(timeout=5)
            raise self._dead() from None
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        (length,) = struct.unpack("<I", self._read_exactly(4, deadline))
        body = memoryview(self._read_exactly(length, deadline))
        answer = body[0]
        if answer == OP_ERROR:
            raise BridgeError(json.loads(bytes(body[1:]))["error"])
        if answer != op:
            raise BridgeError(f"the Node simulation answered operation {answer} to {op}")
        return body[1:]

    @staticmethod
    def _sized_json(body: memoryview) -> tuple[Any, memoryview]:
        (n,) = struct.unpack_from("<I", body, 0)
        return json.loads(bytes(body[4 : 4 + n])), body[4 + n :]

    def reset(self, seeds: list[int], envs: list[int] | None = None) -> np.ndarray:
        """Start episodes (all, or `envs`) on their seeds; every environment's observations."""
        request: dict[str, Any] = {"seeds": [int(s) for s in seeds]}
        if envs is not None:
            request["envs"] = [int(e) for e in envs]
        _, rest = self._sized_json(self._call(OP_RESET, json.dumps(request).encode()))
        return np.frombuffer(rest, dtype="<f4").reshape(self.envs, len(self.agents), self.obs_size).copy()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Apply actions (envs x agents x action size) and play one step of every environment."""
        array = np.ascontiguousarray(actions, dtype="<f8")
        expected = (self.envs, len(self.agents), self.action_size)
        if array.size != int(np.prod(expected)):
            raise ValueError(f"actions must have shape {expected}, got {array.shape}")
        meta, rest = self._sized_json(self._call(OP_STEP, array.tobytes()))
        n = self.envs * len(self.agents)
        obs_bytes = n * self.obs_size * 4
        obs = np.frombuffer(rest[:obs_bytes], dtype="<f4").reshape(self.envs, len(self.agents), self.obs_size).copy()
        rewards = np.frombuffer(rest[obs_bytes : obs_bytes + 4 * n], dtype="<f4").reshape(self.envs, len(self.agents)).copy()
        terminations = np.frombuffer(rest[obs_bytes + 4 * n : obs_bytes + 5 * n], dtype=np.uint8).reshape(self.envs, len(self.agents)).astype(bool)
        return obs, rewards, terminations, meta["ends"]

    def close(self) -> None:
        """End the child (idempotent)."""
        if self._process.poll() is None:
            try:
                self._process.stdin.write(struct.pack("<IB", 1, OP_CLOSE))  # type: ignore[union-attr]
                self._process.stdin.flush()  # type: ignore[union-attr]
            except OSError:
                pass
        self._finalizer()
        self._selector.close()

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def alive(self) -> bool:
        return self._process.poll() is None
