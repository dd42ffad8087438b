"""Train the navigate skill with Stable-Baselines3's PPO on Hillmind, and bring it back.

    .venv-train/bin/pip install -e python stable-baselines3 onnx
    .venv-train/bin/python python/examples/train_navigate_sb3.py --steps 1000000 --out results/python-navigate

Each (environment, blue agent) pair is one of SB3's environments, stepped 64 environments
to a call through the bridge, against the heuristic team, with the navigate skill's own
training reward and varied starts. The policy is Hillmind's shape (2 x 64 tanh), exported
with hillmind.export beside a copy of the shipped models, so that

    HILLMIND_MODELS=results/python-navigate npm run evaluate -- --episodes 200 --write

scores it against the scripted navigate and writes the figures into its card.
"""
from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

import numpy as np
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import VecEnv

from hillmind import HillmindVectorEnv
from hillmind._bridge import repository_root
from hillmind.export import export_policy


class HillmindSb3VecEnv(VecEnv):
    """SB3's VecEnv over a HillmindVectorEnv, whose sub-environments are already one per (match, agent)."""

    def __init__(self, envs: int, opponent: str, reward: str, seed: int):
        self.hillmind = HillmindVectorEnv(envs, level="control", opponent=opponent, reward=reward, scenario_start=True, seed=seed)
        super().__init__(self.hillmind.num_envs, self.hillmind.single_observation_space, self.hillmind.single_action_space)
        self._actions: np.ndarray | None = None
        self.returns = np.zeros(self.num_envs)
        self.finished: list[float] = []

    def reset(self):
        obs, _ = self.hillmind.reset()
        return obs

    def step_async(self, actions):
        self._actions = np.asarray(actions, np.float64)

    def step_wait(self):
        obs, rewards, terminations, truncations, infos = self.hillmind.step(self._actions)
        rewards = rewards.astype(np.float32)
        dones = terminations | truncations
        out = [{} for _ in range(self.num_envs)]
        self.returns += rewards
        for i in np.flatnonzero(dones):
            out[i]["terminal_observation"] = infos["final_obs"][i]
            out[i]["TimeLimit.truncated"] = bool(truncations[i])  # the time limit: SB3 bootstraps past it
            out[i]["episode"] = {"r": float(self.returns[i]), "l": int(infos["final_info"]["ticks"][i]) // 4}
            self.finished.append(float(self.returns[i]))
            self.returns[i] = 0.0
        return obs, rewards, dones, out

    def close(self):
        self.hillmind.close()

    def get_attr(self, attr_name, indices=None):
        return [getattr(self, attr_name)] * (self.num_envs if indices is None else len(indices))

    def set_attr(self, attr_name, value, indices=None):
        setattr(self, attr_name, value)

    def env_method(self, method_name, *args, indices=None, **kwargs):
        return [None] * self.num_envs

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * self.num_envs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1_000_000)
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="results/python-navigate")
    args = parser.parse_args()
    env = HillmindSb3VecEnv(args.envs, opponent="heuristic", reward="navigate", seed=args.seed)
    # The study's PPO settings where SB3 has them: lr 3e-4, gamma 0.99, lambda 0.95, 2 x 64 tanh.
    model = PPO("MlpPolicy", env, n_steps=64, batch_size=2048, n_epochs=4, learning_rate=3e-4, gamma=0.99, gae_lambda=0.95,
                policy_kwargs={"net_arch": [64, 64], "activation_fn": __import__("torch").nn.Tanh}, seed=args.seed, verbose=0)
    started = time.time()
    done = 0
    while done < args.steps:
        model.learn(total_timesteps=min(200_000, args.steps - done), reset_num_timesteps=False)
        done = model.num_timesteps
        recent = env.finished[-200:]
        print(f"{done:,} steps, {time.time() - started:.0f} s, mean return of the last {len(recent)} episodes: {np.mean(recent) if recent else float('nan'):.3f}", flush=True)
    wall = time.time() - started

    # Hillmind's graph: Linear layers as (in, out) weights; dash and fire are on above 0.5 in
    # SB3's action space and above a logit of 0 in Hillmind's, so their biases move by -0.5.
    net = model.policy.mlp_extractor.policy_net
    linears = [m for m in net if hasattr(m, "weight")] + [model.policy.action_net]
    layers = [(m.weight.detach().numpy().T.astype(np.float32), m.bias.detach().numpy().astype(np.float32)) for m in linears]
    layers[-1][1][3:] -= 0.5
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    shipped = repository_root() / "models"
    for name in ("combat", "secure", "retreat", "flat"):
        for ext in ("onnx", "json"):
            shutil.copy(shipped / f"{name}.{ext}", out / f"{name}.{ext}")
    export_policy(out, "navigate", layers, np.zeros(20), np.ones(20), clip=1e9, log_std=model.policy.log_std.detach().numpy()[:3].tolist(),
                  training={"scenario": "navigate", "opponent": "heuristic", "seed": args.seed, "steps": int(done), "wallSeconds": round(wall),
                            "stepsPerSecond": round(done / wall), "reproduce": f"python python/examples/train_navigate_sb3.py --steps {args.steps} --seed {args.seed}",
                            "config": {"library": "stable-baselines3 PPO", "envs": args.envs, "n_steps": 64, "batch_size": 2048, "n_epochs": 4, "lr": 3e-4}})
    env.close()
    print(f"wrote {out}/navigate.onnx and its card; HILLMIND_MODELS={out} npm run evaluate -- --episodes 200 --write")


if __name__ == "__main__":
    main()
