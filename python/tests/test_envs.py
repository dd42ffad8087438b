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
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.wrappers.vector import RecordEpisodeStatistics
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test

from hillmind import BridgeClosed, BridgeError, HillmindControlEnv, HillmindStrategistEnv, HillmindVectorEnv, control_v1, strategist_v1
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


def test_vector_form_is_a_gymnasium_vector_env_that_restarts_ended_matches_in_the_same_step():
    env = HillmindVectorEnv(8, level="control", opponent=None, seed=100)
    assert isinstance(env, VectorEnv) and env.num_envs == 8 * 4
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    stats = RecordEpisodeStatistics(env)  # Gymnasium's own wrapper reads the vector API and autoreset mode
    obs, infos = stats.reset()
    assert obs.shape == (32, 20) and env.observation_space.contains(obs)
    np.testing.assert_array_equal(infos["seed"], np.repeat(np.arange(100, 108), 4))
    env.action_space.seed(1)
    ended = []
    # A 60 s episode is 750 steps: every match ends at least once.
    for _ in range(760):
        obs, rewards, terminations, truncations, infos = stats.step(env.action_space.sample())
        assert obs.shape == (32, 20) and rewards.shape == terminations.shape == truncations.shape == (32,)
        done = terminations | truncations
        assert not (terminations & truncations).any()
        if done.any():
            np.testing.assert_array_equal(infos["_final_obs"], done)
            np.testing.assert_array_equal(infos["_episode"], done)
            for i in np.flatnonzero(done):
                final = {k: infos["final_info"][k][i] for k in ("outcome", "hash", "ticks", "seed")}
                # terminated by a win, truncated by the time limit (a draw)
                assert truncations[i] == (final["outcome"] == "draw")
                assert env.single_observation_space.contains(infos["final_obs"][i])
                ended.append((i // 4, final))
    stats.close()
    assert {m for m, _ in ended} == set(range(8))
    assert all(len(f["hash"]) == 16 and f["outcome"] in ("blue", "red", "draw") for _, f in ended)
    assert any(f["outcome"] == "draw" for _, f in ended) and any(f["outcome"] != "draw" for _, f in ended)


def test_the_time_limit_truncates_an_episode_and_a_win_terminates_it():
    env = HillmindControlEnv(opponent=None)  # four idle agents: nobody takes the zone, the time limit ends it
    env.reset(seed=3)
    while env.agents:
        _, _, terms, truncs, infos = env.step({a: np.zeros(5, np.float32) for a in env.agents})
    env.close()
    assert infos["blue_0"]["outcome"] == "draw"
    assert truncs == dict.fromkeys(["blue_0", "blue_1", "red_0", "red_1"], True) and not any(terms.values())
    env = HillmindStrategistEnv(opponent="random")  # secure and combat win seed 5
    env.reset(seed=5)
    while env.agents:
        _, _, terms, truncs, infos = env.step({"blue_0": env.skills.index("secure"), "blue_1": env.skills.index("combat")})
    env.close()
    assert infos["blue_0"]["outcome"] == "blue"
    assert terms == {"blue_0": True, "blue_1": True} and not any(truncs.values())


def test_pettingzoo_module_factories_give_the_parallel_and_aec_forms():
    parallel = strategist_v1.parallel_env(opponent="random")
    assert isinstance(parallel, HillmindStrategistEnv)
    parallel_api_test(parallel, num_cycles=20)
    parallel.close()
    aec = control_v1.env(opponent="heuristic")
    api_test(aec, num_cycles=50)
    aec.close()


def test_bad_input_and_a_refusing_simulation_are_clear_errors():
    with pytest.raises(BridgeError, match="the strategist level needs an opponent team id"):
        Bridge({"level": "strategist", "envs": 1, "opponent": None, "reward": "match"})
    with pytest.raises(BridgeError, match="unknown team id 'skynet'"):
        HillmindControlEnv(opponent="skynet").reset(seed=1)
    env = HillmindVectorEnv(2, level="control", opponent="heuristic")
    env.reset()
    with pytest.raises(ValueError, match=r"actions must have shape \(4, 5\) \(2 matches x 2 agents\), got \(2, 5\)"):
        env.step(np.zeros((2, 5), np.float32))
    with pytest.raises(ValueError, match="seed is one whole number"):
        env.reset(seed=[1, 2])
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

