"""The bridge under abuse: it raises, and stays unusable, rather than return a wrong answer;
a refused step moves nothing; answers are checked whole; no child outlives its environment.
Children that break the protocol are small Python scripts standing in for Node."""
from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import signal
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hillmind import BridgeClosed, BridgeError, BridgeTimeout, HillmindControlEnv, HillmindStrategistEnv, HillmindVectorEnv
from hillmind._bridge import OP_HELLO, OP_RESET, OP_STEP, PROTOCOL, Bridge

CONTROL = {"level": "control", "envs": 1, "opponent": "heuristic", "reward": "match"}
SPEC = {"protocol": PROTOCOL, "level": "control", "envs": 1, "agents": ["blue_0", "blue_1"], "obsSize": 20, "actionSize": 5,
        "skills": ["navigate", "combat", "secure", "retreat"], "obsSpecVersion": 1, "actionSpecVersion": 1, "ticksPerStep": 4}


def answer(op: int, body: bytes) -> bytes:
    return struct.pack("<IB", len(body) + 1, op) + body


def sized(meta: dict) -> bytes:
    text = json.dumps(meta).encode()
    return struct.pack("<I", len(text)) + text


def fake_child(tmp_path: Path, answers: list[bytes]) -> str:
    """An executable that answers each request with the next of `answers`, then reads to the end."""
    script = tmp_path / "fake-node"
    script.write_text(
        f"#!{sys.executable}\n"
        "import struct, sys\n"
        f"answers = {answers!r}\n"
        "def read(n):\n"
        "    data = b''\n"
        "    while len(data) < n:\n"
        "        chunk = sys.stdin.buffer.read(n - len(data))\n"
        "        if not chunk: sys.exit(0)\n"
        "        data += chunk\n"
        "    return data\n"
        "for a in answers:\n"
        "    read(struct.unpack('<I', read(4))[0])\n"
        "    sys.stdout.buffer.write(a); sys.stdout.buffer.flush()\n"
        "while read(1): pass\n"
    )
    script.chmod(0o755)
    return str(script)


HELLO = answer(OP_HELLO, json.dumps(SPEC).encode())
RESET = answer(OP_RESET, sized({}) + np.zeros(2 * 20, "<f4").tobytes())
STEP = sized({"ends": []}) + np.zeros(2 * 20, "<f4").tobytes() + np.zeros(2, "<f4").tobytes() + bytes(2) + bytes(2)


def test_after_a_timeout_every_call_raises_saying_why_and_the_child_is_stopped():
    bridge = Bridge(CONTROL, timeout=1.0)
    first = bridge.reset([1])
    os.kill(bridge.pid, signal.SIGSTOP)
    try:
        with pytest.raises(BridgeTimeout, match="did not answer within 1 s"):
            bridge.step(np.zeros((1, 2, 5)))
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(bridge.pid, signal.SIGCONT)  # the late answer must never be read as the next call's
    unusable = r"unusable: an earlier call failed \(the Node simulation did not answer within 1 s\), and its Node child was stopped; make a new environment"
    with pytest.raises(BridgeClosed, match=unusable):
        bridge.step(np.zeros((1, 2, 5)))
    with pytest.raises(BridgeClosed, match=unusable):
        bridge.reset([1])
    assert not bridge.alive
    bridge.close()
    assert first.shape == (1, 2, 20)


def test_a_dead_child_stays_an_error_on_every_later_call():
    env = HillmindControlEnv(opponent="heuristic")
    env.reset(seed=1)
    os.kill(env._bridge.pid, signal.SIGKILL)
    actions = {a: env.action_space(a).sample() for a in env.agents}
    with pytest.raises(BridgeClosed, match="the Node simulation exited"):
        env.step(actions)
    with pytest.raises(BridgeClosed, match="(?s)unusable: an earlier call failed .*make a new environment"):
        env.step(actions)
    env.close()


def test_a_vector_step_with_one_bad_skill_is_refused_whole_and_moves_no_environment():
    bridge = Bridge({"level": "strategist", "envs": 4, "opponent": "bt-scripted", "reward": "match"})
    bridge.reset([7, 7, 7, 7])  # four copies of one match
    bad = np.array([[0, 1], [2, 3], [0, 1], [2, 9]], np.float64).reshape(4, 2, 1)
    with pytest.raises(ValueError, match=r"a skill is a whole number from 0 to 3, got 9 \(environment 3, agent 1\)"):
        bridge.step(bad)
    with pytest.raises(ValueError, match=r"got 2.5 \(environment 1, agent 0\)"):
        bridge.step(np.full((4, 2, 1), 2.0) + np.array([0, 0.5, 0, 0]).reshape(4, 1, 1) * np.array([1, 0]).reshape(1, 2, 1))
    obs, _, _, _, _ = bridge.step(np.full((4, 2, 1), 2.0))
    bridge.close()
    for e in range(1, 4):  # had the refused steps moved environments 0-2, they would be ahead of 3
        np.testing.assert_array_equal(obs[e], obs[0])


def test_the_strategist_env_refuses_a_fractional_skill_rather_than_round_it():
    env = HillmindStrategistEnv(opponent="bt-scripted")
    env.reset(seed=2)
    with pytest.raises(ValueError, match="a skill is a whole number from 0 to 3, got 1.7"):
        env.step({"blue_0": 1.7, "blue_1": 0})
    env.close()


def test_a_reset_of_some_environments_before_all_have_started_is_refused_and_changes_nothing():
    bridge = Bridge({**CONTROL, "envs": 3})
    with pytest.raises(BridgeError, match=r"environments 0, 2 have not started: reset every environment \(no envs\) first"):
        bridge.reset([5], envs=[1])
    assert bridge.reset([1, 2, 3]).shape == (3, 2, 20)  # a refused call leaves the bridge usable
    bridge.close()


@pytest.mark.parametrize("make", [lambda: HillmindControlEnv(opponent="heuristic"), lambda: HillmindVectorEnv(2, level="control", opponent=None)])
def test_a_dropped_environment_ends_its_child(make):
    env = make()
    process = (env._bridge if hasattr(env, "_bridge") else env.bridge)._process
    del env
    gc.collect()
    assert process.poll() is not None, "the Node child outlived its environment"


def test_an_answer_with_stray_bytes_after_its_arrays_is_refused_and_the_bridge_stays_unusable(tmp_path):
    bridge = Bridge(CONTROL, node=fake_child(tmp_path, [HELLO, RESET, answer(OP_STEP, STEP + b"xyz")]))
    bridge.reset([1])
    with pytest.raises(BridgeError, match="broke the protocol: a step's answer of 191 bytes; expected 172 bytes of arrays after its JSON"):
        bridge.step(np.zeros((1, 2, 5)))
    with pytest.raises(BridgeClosed, match="unusable"):
        bridge.step(np.zeros((1, 2, 5)))
    bridge.close()


def test_an_oversize_answer_is_refused_from_its_header_without_waiting_for_its_body(tmp_path):
    header_only = struct.pack("<IB", 48 * 1024 * 1024 + 1, OP_RESET)
    bridge = Bridge(CONTROL, node=fake_child(tmp_path, [HELLO, header_only]), timeout=30)
    with pytest.raises(BridgeError, match=r"broke the protocol: an answer of 50331649 bytes; expected 1 to \d+"):
        bridge.reset([1])
    assert not bridge.alive
    bridge.close()


def without(field: str) -> dict:
    return {k: v for k, v in SPEC.items() if k != field}


@pytest.mark.parametrize(
    ("handshake", "message"),
    [
        (without("obsSize"), "the handshake's obsSize is missing; expected a whole number above 0"),
        (without("level"), "the handshake's level is missing; expected 'control' or 'strategist'"),
        ({**SPEC, "agents": "blue_0"}, "the handshake's agents is 'blue_0'; expected a list of names, at least one"),
        ({**SPEC, "envs": 0}, "the handshake's envs is 0; expected a whole number above 0"),
        ({**SPEC, "actionSize": True}, "the handshake's actionSize is True; expected a whole number above 0"),
        ([SPEC], "the handshake is a list; expected a JSON object"),
    ],
)
def test_a_handshake_missing_or_misstating_a_field_is_refused_naming_it_and_the_child_is_stopped(tmp_path, monkeypatch, handshake, message):
    children = []

    def popen(*args, **kwargs):
        children.append(real_popen(*args, **kwargs))
        return children[-1]

    real_popen = subprocess.Popen
    monkeypatch.setattr(subprocess, "Popen", popen)
    with pytest.raises(BridgeError, match=re.escape(f"the Node simulation broke the protocol: {message}")):
        Bridge(CONTROL, node=fake_child(tmp_path, [answer(OP_HELLO, json.dumps(handshake).encode())]))
    assert len(children) == 1 and children[0].poll() is not None, "the child outlived a refused handshake"
