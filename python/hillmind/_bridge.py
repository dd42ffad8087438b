"""The Python end of the wire to the Node simulation (src/train/bridgeServer.ts).

Frames are a little-endian u32 length, then the payload, whose first byte is the operation:
HELLO (JSON options -> JSON spec), RESET (JSON seeds -> observations), STEP (float64 actions ->
observations, rewards, terminations, truncations and the episodes that ended), CLOSE. Arrays travel raw
(read by numpy in place): actions as float64, the simulation's precision, observations and
rewards as float32; the rest as JSON. Every call has a timeout, writing as reading; a child
that died is a BridgeClosed naming its exit code and the end of its standard error, never a
hang. The handshake is checked whole (every field this package reads, present and of its kind);
answers are checked whole against the spec (no byte more or less, none longer than the
protocol allows, read from their header). A call that fails midway stops the child and leaves
the bridge unusable: every later call raises, none returns an answer meant for another.
"""
from __future__ import annotations

import json
import os
import selectors
import struct
import subprocess
import threading
import time
import weakref
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

PROTOCOL = 2
# The observation and action specs this package's spaces describe (src/sim/observeSpec.ts, actions.ts).
OBS_SPEC_VERSION = 1
ACTION_SPEC_VERSION = 1
OP_HELLO, OP_RESET, OP_STEP, OP_CLOSE, OP_ERROR = 1, 2, 3, 4, 255


class BridgeError(RuntimeError):
    """The simulation refused a call; the message says why."""


class BridgeClosed(BridgeError):
    """The Node child is gone: it died, or the bridge stopped it after a call failed midway."""


class BridgeTimeout(BridgeError):
    """The Node child did not answer in time."""


def repository_root() -> Path:
    """The checkout this package sits in (python/hillmind -> the repository root)."""
    return Path(__file__).resolve().parent.parent.parent


# The most bytes of JSON an answer carries beside its arrays (a spec, the episodes that ended, an error).
_JSON_ANSWER_LIMIT = 1 << 20


def _whole_above_zero(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _names(value: Any) -> bool:
    return isinstance(value, list) and len(value) > 0 and all(isinstance(v, str) for v in value)


# What the handshake (src/train/bridgeEnv.ts, BridgeSpec) must say for this package to use it:
# each field, whether its value will do, and what was expected, for the error.
_HANDSHAKE_FIELDS: dict[str, tuple[Any, str]] = {
    "obsSpecVersion": (_whole_above_zero, "a whole number above 0"),
    "actionSpecVersion": (_whole_above_zero, "a whole number above 0"),
    "level": (lambda v: v in ("control", "strategist"), "'control' or 'strategist'"),
    "envs": (_whole_above_zero, "a whole number above 0"),
    "agents": (_names, "a list of names, at least one"),
    "obsSize": (_whole_above_zero, "a whole number above 0"),
    "actionSize": (_whole_above_zero, "a whole number above 0"),
    "skills": (_names, "a list of names, at least one"),
}


def _handshake_problem(spec: Any) -> str | None:
    """What is wrong with a handshake (the first missing or invalid field), or None when this package can use it."""
    if not isinstance(spec, dict):
        return f"the handshake is a {type(spec).__name__}; expected a JSON object"
    for field, (valid, expected) in _HANDSHAKE_FIELDS.items():
        if field not in spec:
            return f"the handshake's {field} is missing; expected {expected}"
        if not valid(spec[field]):
            return f"the handshake's {field} is {spec[field]!r}; expected {expected}"
    return None


def _stop(process: subprocess.Popen[bytes], *, at_once: bool = False) -> None:
    """End the child: by closing its input (it exits at its end), or at once by a kill."""
    if process.poll() is None and not at_once:
        try:
            process.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    if process.poll() is None:
        process.kill()
        process.wait()
    for pipe in (process.stdin, process.stdout):  # the stderr reader closes its own
        try:
            pipe.close()  # type: ignore[union-attr]
        except OSError:
            pass


def _drain(stream: Any, lines: deque[str]) -> None:
    # A function of the stream and the deque, never of the Bridge: a thread holding the Bridge
    # would keep it from being collected, and its child running.
    with stream:
        for line in stream:
            lines.append(line.decode("utf8", "replace").rstrip())


class Bridge:
    """One Node child serving `options['envs']` environments of one level.

    A call that fails midway (the child stalled, died, or answered what the protocol does not
    allow) leaves the two ends out of step: the bridge then stops the child, and every later
    call raises BridgeClosed saying why, rather than read an answer meant for an earlier call.
    A call the simulation refuses (a BridgeError with its reason) changes nothing.
    """

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
        # Garbage collection ends the child too.
        self._finalizer = weakref.finalize(self, _stop, self._process)
        self._stderr: deque[str] = deque(maxlen=40)
        threading.Thread(target=_drain, args=(self._process.stderr, self._stderr), daemon=True).start()
        # Writes wait on the same deadline as reads: a stalled child with a full pipe is a timeout, not a hang.
        os.set_blocking(self._process.stdin.fileno(), False)  # type: ignore[union-attr]
        self._readable = selectors.DefaultSelector()
        self._readable.register(self._process.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
        self._writable = selectors.DefaultSelector()
        self._writable.register(self._process.stdin, selectors.EVENT_WRITE)  # type: ignore[arg-type]
        self._buffer = bytearray()
        self._unusable: str | None = None
        self.envs = 0
        try:
            spec = self._call(OP_HELLO, json.dumps({"protocol": PROTOCOL, **options}).encode(), timeout=start_timeout)
            self.spec: dict[str, Any] = self._json(spec, "the handshake")
            problem = _handshake_problem(self.spec)
            if problem:
                raise self._refuse_protocol(problem)
            versions = (self.spec["obsSpecVersion"], self.spec["actionSpecVersion"])
            if versions != (OBS_SPEC_VERSION, ACTION_SPEC_VERSION):
                raise BridgeError(
                    f"the simulation observes with spec v{versions[0]} and acts with spec v{versions[1]}; this package was written for "
                    f"v{OBS_SPEC_VERSION} and v{ACTION_SPEC_VERSION}: install the package from the same checkout"
                )
            self.envs = int(self.spec["envs"])
            self.agents: list[str] = self.spec["agents"]
            self.obs_size: int = self.spec["obsSize"]
            self.action_size: int = self.spec["actionSize"]
            self.skills: list[str] = self.spec["skills"]
            self.level: str = self.spec["level"]
        except BaseException:
            self.close()
            raise

    def _dead(self) -> BridgeClosed:
        code = self._process.poll()
        tail = "\n".join(self._stderr) or "(nothing on its standard error)"
        return BridgeClosed(f"the Node simulation exited (code {code}):\n{tail}")

    def _broken(self, error: BaseException) -> None:
        """A call failed midway: no later answer can be trusted to be its own, so stop the child and refuse the rest."""
        if self._unusable is None:
            self._unusable = str(error) or type(error).__name__
        _stop(self._process, at_once=True)

    def _refuse_protocol(self, what: str) -> BridgeError:
        error = BridgeError(f"the Node simulation broke the protocol: {what}")
        self._broken(error)
        return error

    def _max_answer(self) -> int:
        """The longest answer frame the protocol allows: a step's arrays plus its JSON."""
        if not self.envs:
            return _JSON_ANSWER_LIMIT
        return _JSON_ANSWER_LIMIT + self.envs * len(self.agents) * (4 * self.obs_size + 4 + 1 + 1)

    def _write_all(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        fd = self._process.stdin.fileno()  # type: ignore[union-attr]
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BridgeTimeout(f"the Node simulation did not take a request within {self.timeout:g} s")
            if not self._writable.select(timeout=left):
                continue
            try:
                view = view[os.write(fd, view) :]
            except BlockingIOError:
                continue
            except OSError:
                self._process.wait(timeout=5)
                raise self._dead() from None

    def _read_exactly(self, n: int, deadline: float) -> bytes:
        while len(self._buffer) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BridgeTimeout(f"the Node simulation did not answer within {self.timeout:g} s")
            if not self._readable.select(timeout=left):
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
        if self._unusable is not None:
            raise BridgeClosed(f"this bridge is unusable: an earlier call failed ({self._unusable}), and its Node child was stopped; make a new environment")
        if self._process.poll() is not None:
            error = self._dead()
            self._broken(error)
            raise error
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        try:
            self._write_all(struct.pack("<IB", len(payload) + 1, op) + payload, deadline)
            (length,) = struct.unpack("<I", self._read_exactly(4, deadline))
            if not 1 <= length <= self._max_answer():
                raise self._refuse_protocol(f"an answer of {length} bytes; expected 1 to {self._max_answer()}")
            body = memoryview(self._read_exactly(length, deadline))
        except BaseException as error:  # a timeout, a dead child, an interrupt: the ends are out of step
            self._broken(error)
            raise
        answer = body[0]
        if answer == OP_ERROR:
            error = self._json(body[1:], "an error")
            if not isinstance(error, dict) or not isinstance(error.get("error"), str):
                raise self._refuse_protocol("an error without its message")
            raise BridgeError(error["error"])
        if answer != op:
            raise self._refuse_protocol(f"it answered operation {answer} to {op}")
        return body[1:]

    def _json(self, data: memoryview, what: str) -> Any:
        try:
            return json.loads(bytes(data))
        except ValueError:
            raise self._refuse_protocol(f"{what} is not JSON") from None

    def _arrays(self, body: memoryview, what: str, sizes: list[int]) -> tuple[Any, list[memoryview]]:
        """An answer's u32-sized JSON, then arrays of exactly `sizes` bytes, checked whole."""
        (n,) = struct.unpack_from("<I", body, 0) if len(body) >= 4 else (-1,)
        if n < 0 or len(body) != 4 + n + sum(sizes):
            raise self._refuse_protocol(f"{what} of {len(body)} bytes; expected {sum(sizes)} bytes of arrays after its JSON")
        meta = self._json(body[4 : 4 + n], what)
        parts, at = [], 4 + n
        for size in sizes:
            parts.append(body[at : at + size])
            at += size
        return meta, parts

    def reset(self, seeds: list[int], envs: list[int] | None = None) -> np.ndarray:
        """Start episodes (all, or `envs`) on their seeds; every environment's observations."""
        request: dict[str, Any] = {"seeds": [int(s) for s in seeds]}
        if envs is not None:
            request["envs"] = [int(e) for e in envs]
        shape = (self.envs, len(self.agents), self.obs_size)
        _, (obs,) = self._arrays(self._call(OP_RESET, json.dumps(request).encode()), "a reset's answer", [4 * int(np.prod(shape))])
        return np.frombuffer(obs, dtype="<f4").reshape(shape).copy()

    def _check_actions(self, array: np.ndarray) -> None:
        """The whole step is checked before it is sent, so a refused step moves no environment."""
        expected = (self.envs, len(self.agents), self.action_size)
        if array.size != int(np.prod(expected)):
            raise ValueError(f"actions must have shape {expected}, got {array.shape}")
        if self.level == "strategist":
            skills = array.reshape(self.envs, len(self.agents))
            bad = np.argwhere(~((skills == np.floor(skills)) & (skills >= 0) & (skills < len(self.skills))))
            if len(bad):
                env, agent = (int(i) for i in bad[0])
                raise ValueError(f"a skill is a whole number from 0 to {len(self.skills) - 1}, got {skills[env, agent]:g} (environment {env}, agent {agent})")

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Apply actions (envs x agents x action size) and play one step of every environment: its
        observations, rewards, terminations (a win), truncations (the time limit) and the episodes that ended."""
        array = np.ascontiguousarray(actions, dtype="<f8")
        self._check_actions(array)
        n = self.envs * len(self.agents)
        meta, (obs, rewards, terminations, truncations) = self._arrays(self._call(OP_STEP, array.tobytes()), "a step's answer", [4 * n * self.obs_size, 4 * n, n, n])
        if not isinstance(meta, dict) or not isinstance(meta.get("ends"), list):
            raise self._refuse_protocol("a step's answer without its list of ended episodes")
        return (
            np.frombuffer(obs, dtype="<f4").reshape(self.envs, len(self.agents), self.obs_size).copy(),
            np.frombuffer(rewards, dtype="<f4").reshape(self.envs, len(self.agents)).copy(),
            np.frombuffer(terminations, dtype=np.uint8).reshape(self.envs, len(self.agents)).astype(bool),
            np.frombuffer(truncations, dtype=np.uint8).reshape(self.envs, len(self.agents)).astype(bool),
            meta["ends"],
        )

    def close(self) -> None:
        """End the child (idempotent)."""
        if self._process.poll() is None and self._unusable is None:
            try:
                os.write(self._process.stdin.fileno(), struct.pack("<IB", 1, OP_CLOSE))  # type: ignore[union-attr]
            except OSError:
                pass
        self._finalizer()
        self._readable.close()
        self._writable.close()

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def alive(self) -> bool:
        return self._process.poll() is None
