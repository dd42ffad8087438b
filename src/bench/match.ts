/**
 * Simulation benchmarks: raw step() throughput, whole matches with controllers, replay
 * verification, and the planner's rollouts.
 * One core, no rendering. Used by `npm run bench`.
 */
import { type Action, type SimEvent, type World, createWorld, det, idleAction, step } from '../sim';
import { type Policy, SKILL_IDS, type SkillSet } from '../skills';
import { PLANNER_DEFAULTS, type Platform, PlannerStrategist, TreeSide, cloneWorld } from '../teams';
import { Match, runMatch } from '../match/match';
import { verifyReplayWithModels } from '../match/verify';

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

/**
 * The planner's rollouts (teams/rollout.ts) and plans, at its defaults, from positions of a
 * bt vs bt match: rollouts and rollout ticks per second, plans (decisions that plan) per
 * second, the share of that time spent in the trained skills' network (the rest is the
 * simulation, the observations and the tree), and the share of options whose rollout was
 * spared because it would have replayed the tree's own.
 */
export async function benchPlanner(platform: Platform, seconds: number): Promise<BenchRow[]> {
  const skills = await platform.models.skillSet();
  let networkMs = 0;
  const timed = Object.fromEntries(
    SKILL_IDS.map((id) => {
      const policy = skills[id];
      const act: Policy['act'] = (obs, count, out, context) => {
        const t = performance.now();
        const result = policy.act(obs, count, out, context);
        networkMs += performance.now() - t;
        return result;
      };
      return [id, { ...policy, act }];
    }),
  ) as unknown as SkillSet;
  const positions = await plannerPositions(platform);
  let plans = 0;
  let rollouts = 0;
  let spared = 0;
  let ticks = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000 || plans < positions.length) {
    const world = positions[plans % positions.length]!;
    const strategist = new PlannerStrategist(PLANNER_DEFAULTS, new TreeSide(0, timed), new TreeSide(1, timed), new TreeSide(1, timed), 0, plans, world.config);
    strategist.decide(world, 0, ['navigate', 'navigate']);
    rollouts += strategist.counters.rollouts;
    spared += strategist.counters.spared;
    ticks += strategist.counters.ticks;
    plans++;
  }
  const elapsedMs = performance.now() - start;
  const perSecond = (n: number) => n / (elapsedMs / 1000);
  const d = PLANNER_DEFAULTS;
  return [
    { name: `planner rollouts (${d.horizon} s, vs the ${d.opponent} model)`, value: perSecond(rollouts), unit: 'rollouts/s' },
    { name: 'planner rollout ticks', value: perSecond(ticks), unit: 'ticks/s' },
    // A plan each `every` seconds of play: the rate the page needs at 1x.
    { name: `planner decisions that plan (${d.search} search, ${(rollouts / plans).toFixed(1)} rollouts)`, value: perSecond(plans), unit: 'decisions/s', target: 1 / d.every },
    { name: 'planner time in the skills\' network', value: (100 * networkMs) / elapsedMs, unit: '%' },
    { name: 'planner options spared (the tree\'s own rollout)', value: (100 * spared) / (rollouts + spared), unit: '%' },
  ];
}

/** Worlds every second of a bt vs bt match (seed 3), on skill ticks, where the planner may be asked. */
async function plannerPositions(platform: Platform): Promise<World[]> {
  const match = await Match.create({ blue: 'bt', red: 'bt', seed: 3 }, { platform, record: false });
  const positions: World[] = [];
  while (!match.done) {
    if (match.world.tick % match.world.config.tickHz === 0) positions.push(cloneWorld(match.world));
    const pending = match.advance();
    if (pending) await pending;
  }
  return positions;
}
