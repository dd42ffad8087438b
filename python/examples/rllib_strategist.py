"""Train a strategist with RLlib's PPO on Ray: one policy shared by both blue agents at the
strategist level (a skill per agent at 2 Hz, the trained skills running inside Node).

    .venv-train/bin/pip install -e python "ray[rllib]" torch
    .venv-train/bin/python python/examples/rllib_strategist.py --iterations 5 --runners 2

On one machine Ray starts its own cluster; across machines, start Ray there (`ray start
--head` on one, `ray start --address=<head>:6379` on the others, each with this checkout and
`npm ci`) and pass --address auto: every env runner then starts its own Node child.
"""
from __future__ import annotations

import argparse

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv
from ray.tune.registry import register_env

from hillmind import HillmindStrategistEnv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--runners", type=int, default=1)
    parser.add_argument("--opponent", default="bt-scripted")
    parser.add_argument("--address", default=None, help="a running Ray cluster (auto), or none: a local one")
    args = parser.parse_args()
    ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
    register_env("hillmind_strategist", lambda config: ParallelPettingZooEnv(HillmindStrategistEnv(opponent=config["opponent"])))
    config = (
        PPOConfig()
        .environment("hillmind_strategist", env_config={"opponent": args.opponent})
        .env_runners(num_env_runners=args.runners, num_envs_per_env_runner=1)
        .multi_agent(policies={"strategist"}, policy_mapping_fn=lambda agent_id, episode, **kwargs: "strategist")
        .training(train_batch_size_per_learner=1200, minibatch_size=200, num_epochs=4, lr=3e-4, gamma=0.99)
    )
    algo = config.build_algo()
    for i in range(args.iterations):
        result = algo.train()
        runners = result.get("env_runners", {})
        print(f"iteration {i + 1}: episodes {runners.get('num_episodes_lifetime', '?')}, mean return {runners.get('episode_return_mean', float('nan')):.3f}", flush=True)
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
