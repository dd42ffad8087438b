"""Agent-steps per second through the bridge: `python -m hillmind.bench [--envs 64] [--seconds 5] [--json]`.

Random actions at the control level, every agent played from Python (self-play), so each
call carries envs x 4 agents; `npm run bench -- --only bridge` prints it beside the same
environments stepped inside Node.
"""
from __future__ import annotations

import argparse
import json
import time

from .vector import HillmindVectorEnv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--level", default="control", choices=["control", "strategist"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    opponent = None if args.level == "control" else "heuristic"
    env = HillmindVectorEnv(args.envs, level=args.level, opponent=opponent)
    env.reset(seed=1)
    env.action_space.seed(0)
    agents = len(env.agents)
    actions = [env.action_space.sample() for _ in range(16)]
    for a in actions[:4]:
        env.step(a)  # warm up
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        env.step(actions[steps % len(actions)])
        steps += 1
    elapsed = time.perf_counter() - start
    env.close()
    result = {"level": args.level, "envs": args.envs, "agents": agents, "calls_per_s": steps / elapsed, "agent_steps_per_s": steps * args.envs * agents / elapsed}
    print(json.dumps(result) if args.json else f"{args.level}, {args.envs} envs: {result['agent_steps_per_s']:,.0f} agent-steps/s ({result['calls_per_s']:.1f} calls/s)")


if __name__ == "__main__":
    main()
