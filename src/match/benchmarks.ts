/**
 * Simulation benchmarks: raw step() throughput and whole matches with controllers.
 * One core, no rendering. Used by `npm run bench`.
 */
import { type Action, type SimEvent, createWorld, idleAction, step } from '../sim';
import type { Platform } from '../teams';
import { runMatch } from './match';

export interface BenchRow {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** The goal, when there is one; the report prints value/target beside it. */
  readonly target?: number;
  /** true when smaller is better (times). */
  readonly lowerIsBetter?: boolean;
}

/** Varied but deterministic actions, so every rule (moves, turns, fire, dash) is exercised. */
function scriptedActions(actions: Action[], tick: number): void {
  actions.forEach((a, i) => {
    a.move = Math.sin(tick * 0.013 + i);
    a.turn = Math.cos(tick * 0.007 + 2 * i);
    a.strafe = Math.sin(tick * 0.011 + 3 * i) * 0.5;
    a.fire = (tick + i) % 3 === 0 ? 1 : 0;
    a.dash = (tick + 17 * i) % 150 === 0 ? 1 : 0;
  });
}

export function benchStep(seconds: number): BenchRow[] {
  const actions = [0, 1, 2, 3].map(() => idleAction());
  const events: SimEvent[] = [];
  let agentTicks = 0;
  let episodes = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    const world = createWorld(episodes);
    while (!world.outcome) {
      scriptedActions(actions, world.tick);
      events.length = 0;
      step(world, actions, events);
      agentTicks += world.agents.length;
    }
    episodes++;
  }
  const elapsed = (performance.now() - start) / 1000;
  return [
    { name: 'sim step(), no controllers', value: agentTicks / elapsed, unit: 'agent-ticks/s', target: 1_000_000 },
    { name: 'sim step(), time per 60 s of play', value: (elapsed * 1000 * 3000 * 4) / agentTicks, unit: 'ms', target: 12, lowerIsBetter: true },
  ];
}

export async function benchMatches(platform: Platform, blue: string, red: string, seconds: number): Promise<BenchRow[]> {
  let agentTicks = 0;
  let episodes = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    const match = await runMatch({ blue, red, seed: episodes }, { platform, record: false });
    agentTicks += match.world.tick * match.world.agents.length;
    episodes++;
  }
  const elapsed = (performance.now() - start) / 1000;
  return [
    { name: `match ${blue} vs ${red}`, value: agentTicks / elapsed, unit: 'agent-ticks/s', target: 1_000_000 },
    { name: `match ${blue} vs ${red}`, value: episodes / elapsed, unit: 'episodes/s' },
  ];
}
