/**
 * Simulation benchmarks: raw step() throughput, whole matches with controllers, and replay verification.
 * One core, no rendering. Used by `npm run bench`.
 */
import { type Action, type SimEvent, createWorld, det, idleAction, step } from '../sim';
import type { Platform } from '../teams';
import { runMatch } from './match';
import { verifyReplayWithModels } from './verify';

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
    a.move = det.sin(tick * 0.013 + i);
    a.turn = det.cos(tick * 0.007 + 2 * i);
    a.strafe = det.sin(tick * 0.011 + 3 * i) * 0.5;
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

/**
 * The simulation's own elementary functions (sim/detMath) beside the engine's Math, on the
 * arguments the game meets: what engine-independent results cost.
 */
export function benchDetMath(seconds: number): BenchRow[] {
  const args = Float64Array.from({ length: 4096 }, (_, i) => ((i * 7919) % 4096) / 4096 * 2 * Math.PI - Math.PI);
  const rate = (f: (x: number) => number) => {
    let sink = 0;
    let calls = 0;
    const start = performance.now();
    while (performance.now() - start < (seconds * 1000) / 8) {
      for (let i = 0; i < args.length; i++) sink += f(args[i]!);
      calls += args.length;
    }
    if (sink === 42) console.log(''); // keep the loop's result alive
    return calls / ((performance.now() - start) / 1000);
  };
  const rows: BenchRow[] = [];
  for (const [name, mine, engine] of [
    ['sin', det.sin, Math.sin],
    ['cos', det.cos, Math.cos],
    ['atan2', (x: number) => det.atan2(x, 0.7), (x: number) => Math.atan2(x, 0.7)], // the engine's own, for comparison
    ['tanh', det.tanh, Math.tanh],
  ] as const) {
    const ours = rate(mine);
    const theirs = rate(engine);
    rows.push({ name: `det.${name} (Math.${name}: ${(theirs / 1e6).toFixed(1)}M/s)`, value: ours, unit: 'calls/s', target: theirs / 2 });
  }
  return rows;
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

/**
 * Replay verification (the server checks every study episode this way): matches recorded
 * first, then verified again and again, in agent-ticks re-simulated per second.
 */
export async function benchVerify(platform: Platform, blue: string, red: string, seconds: number): Promise<BenchRow[]> {
  const replays = [];
  for (const seed of [0, 1, 2, 3]) replays.push((await runMatch({ blue, red, seed }, { platform })).replay());
  let agentTicks = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    for (const replay of replays) {
      const result = await verifyReplayWithModels(replay, { models: platform.models });
      if (!result.ok) throw new Error(`bench: an honest replay of ${blue} vs ${red} does not verify: ${result.problems.join('; ')}`);
      agentTicks += result.ticks * result.summary.agents.length;
    }
  }
  const elapsed = (performance.now() - start) / 1000;
  return [{ name: `verify ${blue} vs ${red}`, value: agentTicks / elapsed, unit: 'agent-ticks/s' }];
}
