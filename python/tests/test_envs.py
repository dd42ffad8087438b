"""The Python package against the Node simulation: PettingZoo's own API and seed tests for
both levels, the same matches as `npm run match`, the vector form, and a child that dies or
hangs is an exception, never a hang."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

from hillmind import BridgeClosed, BridgeError, BridgeTimeout, HillmindControlEnv, HillmindStrategistEnv, HillmindVectorEnv
from hillmind._bridge import Bridge, repository_root

ROOT = repository_root()


def npm_match(*args: str) -> dict:
    out = subprocess.run(["node", "--import", "tsx", "src/cli/match.py".replace(".py", ".ts"), *args, "--json"], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_control_level_passes_pettingzoo_api_test():
    env = HillmindControlEnv(opponent="heuristic")
    parallel_api_test(env, num_cycles=200)
    env.close()


def test_strategist_level_passes_pettingzoo_api_test():
    env = HillmindStrategistEnv(opponent="bt-scripted")
    parallel_api_test(env, num_cycles=50)
    env.close()


def test_both_levels_pass_pettingzoo_seed_test():
    parallel_seed_test(lambda: HillmindControlEnv(opponent=None), num_cycles=60)
    parallel_seed_test(lambda: HillmindStrategistEnv(opponent="random"), num_cycles=30)


def test_strategist_level_plays_the_match_npm_run_match_plays():
    # Always secure and combat: the fixed team's plan, so the same match as fixed:skills=secure+combat.
    env = HillmindStrategistEnv(opponent="bt")
    env.reset(seed=5)
    secure, combat = env.skills.index("secure"), env.skills.index("combat")
    infos = {}
    while env.agents:
        _, _, _, _, infos = env.step({"blue_0": secure, "blue_1": combat})
    env.close()
    node = npm_match("--blue", "fixed:skills=secure+combat", "--red", "bt", "--seed", "5")
    assert infos["blue_0"]["hash"] == node["hash"]
    assert infos["blue_0"]["outcome"] == node["winner"]


def test_control_level_plays_the_match_npm_run_match_plays():
    # Blue's actions from a heuristic-vs-bt replay, sent back at the skills' rate, replay that match.
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.json"
        node = npm_match("--blue", "heuristic", "--red", "bt", "--seed", "3", "--replay", str(path))
        replay = json.loads(path.read_text())
    rows = [r for r in replay["actions"] if r[1] in (0, 1)]
    assert all(r[0] % 4 == 0 for r in rows), "the heuristic acts at the skills' rate"
    env = HillmindControlEnv(opponent="bt")
    env.reset(seed=3)
    held = {0: [0.0] * 5, 1: [0.0] * 5}
    tick, i, infos = 0, 0, {}
    while env.agents:
        while i < len(rows) and rows[i][0] <= tick:
            held[rows[i][1]] = rows[i][2:]
            i += 1
        _, _, _, _, infos = env.step({"blue_0": np.array(held[0]), "blue_1": np.array(held[1])})
        tick += 4
    env.close()
    assert infos["blue_0"]["hash"] == node["hash"]


def test_vector_form_steps_many_environments_and_restarts_ended_ones():
    env = HillmindVectorEnv(8, level="control", opponent=None, seed=100)
    obs = env.reset()
    assert obs.shape == (8, 4, 20)
    ended = []
    # A 60 s episode is 750 steps: every environment ends at least once.
    for _ in range(760):
        actions = np.random.default_rng(1).uniform(-1, 1, (8, 4, 5)).astype(np.float32)
        obs, rewards, terminations, ends = env.step(actions)
        assert rewards.shape == (8, 4)
        ended += ends
    env.close()
    assert {e["env"] for e in ended} == set(range(8))
    assert all(len(e["hash"]) == 16 and e["outcome"] in ("blue", "red", "draw") for e in ended)


def test_bad_input_and_a_refusing_simulation_are_clear_errors():
    with pytest.raises(BridgeError, match="the strategist level needs an opponent team id"):
        Bridge({"level": "strategist", "envs": 1, "opponent": None, "reward": "match"})
    with pytest.raises(BridgeError, match="unknown team id 'skynet'"):
        HillmindControlEnv(opponent="skynet").reset(seed=1)
    env = HillmindVectorEnv(2, level="control", opponent="heuristic")
    env.reset()
    with pytest.raises(ValueError, match=r"actions must have shape \(2, 2, 5\)"):
        env.step(np.zeros((2, 5), np.float32))
    env.close()


def test_the_handshake_refuses_another_spec_version(monkeypatch):
    import hillmind._bridge as bridge

    monkeypatch.setattr(bridge, "OBS_SPEC_VERSION", 99)
    with pytest.raises(BridgeError, match="observes with spec v1 and acts with spec v1; this package was written for v99 and v1"):
        Bridge({"level": "control", "envs": 1, "opponent": "heuristic", "reward": "match"})


def test_a_dead_child_is_an_exception_naming_it_and_close_ends_the_child():
    env = HillmindControlEnv(opponent="heuristic")
    env.reset(seed=1)
    pid = env._bridge.pid
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(BridgeClosed, match="the Node simulation exited"):
        env.step({a: env.action_space(a).sample() for a in env.agents})
    other = HillmindControlEnv(opponent="heuristic")
    child = other._bridge
    other.close()
    assert not child.alive

