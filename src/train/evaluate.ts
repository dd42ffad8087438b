/**
 * Evaluation of trained policies, each against its scripted reference on its own
 * scenario's measure (seeded episodes, identical for both), and of the model-backed teams
 * in whole matches.
 *
 * - navigate: seconds to reach the zone (capped at the horizon) and the share that reach it
 * - combat:   kills per death against the heuristic team
 * - secure:   seconds inside the zone per agent while the heuristic team attacks
 * - retreat:  share of hurt agents that reach a pickup before they are eliminated
 */
import { type Action, OBS_SIZE, deriveSeed, idleAction } from '../sim';
import { type Policy, SCRIPTED_SKILLS, type SkillContext, type SkillId } from '../skills';
import { runMatch } from '../match/match';
import { HEURISTIC_POLICY } from '../teams/heuristic';
import type { Platform } from '../teams/platform';
import { AGENT_NAMES, type AgentName, KothParallelEnv } from './env';
import { SCENARIOS } from './scenarios';

export interface SkillMeasure {
  readonly measure: string;
  readonly unit: string;
  /** true when smaller is better. */
  readonly lowerIsBetter: boolean;
  readonly value: number;
  readonly episodes: number;
}

const LEARNERS: readonly AgentName[] = ['blue_0', 'blue_1'];
const OPPONENTS: readonly AgentName[] = ['red_0', 'red_1'];

async function actAll(policy: Policy, obs: Record<string, Float32Array>, names: readonly AgentName[], alive: readonly AgentName[], context: SkillContext) {
  const present = names.filter((n) => alive.includes(n) && obs[n]);
  const batch = new Float32Array(present.length * OBS_SIZE);
  present.forEach((n, i) => batch.set(obs[n]!, i * OBS_SIZE));
  const out: Action[] = present.map(() => idleAction());
  await policy.act(batch, present.length, out, context);
  return Object.fromEntries(present.map((n, i) => [n, out[i]!]));
}

/** Run seeded episodes of a skill's scenario with `policy` on the blue agents. */
export async function measureSkill(skill: SkillId, policy: Policy, episodes: number, seed = 7): Promise<SkillMeasure> {
  const scenario = SCENARIOS[skill];
  const env = new KothParallelEnv(scenario, { horizonSteps: 200 });
  const secondsPerStep = env.world.config.skillEveryTicks / env.world.config.tickHz;
  let total = 0;
  let count = 0;
  let successes = 0;
  for (let e = 0; e < episodes; e++) {
    let obs = env.reset(deriveSeed(seed, 'evaluate', skill, e)).observations;
    const reached = new Map<string, number>();
    const inZoneSteps = new Map<string, number>();
    let step = 0;
    while (env.agents.length > 0 && !env.world.outcome) {
      const actions = {
        ...(await actAll(policy, obs, LEARNERS, env.agents, env.context)),
        ...(await actAll(HEURISTIC_POLICY, obs, OPPONENTS, env.agents, env.context)),
      };
      const result = env.step(actions);
      step++;
      for (const name of LEARNERS) {
        const id = AGENT_NAMES.indexOf(name);
        const agent = env.world.agents[id]!;
        if (agent.inZone && !reached.has(name)) reached.set(name, step * secondsPerStep);
        if (agent.inZone) inZoneSteps.set(name, (inZoneSteps.get(name) ?? 0) + 1);
      }
      obs = { ...obs, ...result.observations };
    }
    const blue = env.world.agents.filter((a) => a.team === 0);
    const kills = blue.reduce((sum, a) => sum + a.stats.kills, 0);
    const deaths = blue.reduce((sum, a) => sum + a.stats.deaths, 0);
    const horizon = step * secondsPerStep;
    if (skill === 'navigate') {
      for (const name of LEARNERS) {
        const t = reached.get(name);
        total += t ?? horizon;
        count++;
        if (t !== undefined) successes++;
      }
    } else if (skill === 'combat') {
      total += kills;
      count += deaths;
    } else if (skill === 'secure') {
      for (const name of LEARNERS) {
        total += (inZoneSteps.get(name) ?? 0) * secondsPerStep;
        count++;
      }
    } else {
      for (const name of LEARNERS) {
        const agent = env.world.agents[AGENT_NAMES.indexOf(name)]!;
        count++;
        if (agent.stats.pickups > 0) successes++;
      }
    }
  }
  switch (skill) {
    case 'navigate':
      return { measure: `seconds to the zone (${((100 * successes) / count).toFixed(0)}% reach it)`, unit: 's', lowerIsBetter: true, value: total / count, episodes };
    case 'combat':
      return { measure: 'kills per death vs heuristic', unit: 'K/D', lowerIsBetter: false, value: total / Math.max(1, count), episodes };
    case 'secure':
      return { measure: 'seconds in the zone per agent under attack', unit: 's', lowerIsBetter: false, value: total / count, episodes };
    case 'retreat':
      return { measure: 'share of hurt agents reaching a pickup', unit: '', lowerIsBetter: false, value: successes / count, episodes };
  }
}

export interface SkillComparison {
  readonly skill: SkillId;
  readonly rl: SkillMeasure;
  readonly scripted: SkillMeasure;
}

export async function compareSkill(skill: SkillId, policy: Policy, episodes: number): Promise<SkillComparison> {
  return { skill, rl: await measureSkill(skill, policy, episodes), scripted: await measureSkill(skill, SCRIPTED_SKILLS[skill], episodes) };
}

export interface WinRate {
  readonly first: string;
  readonly second: string;
  readonly episodes: number;
  readonly firstWins: number;
  readonly secondWins: number;
  readonly draws: number;
}

/** Seeded matches with sides swapped every other episode. */
export async function winRate(platform: Platform, first: string, second: string, episodes: number, seed = 11): Promise<WinRate> {
  let firstWins = 0;
  let secondWins = 0;
  let draws = 0;
  for (let e = 0; e < episodes; e++) {
    const swap = e % 2 === 1;
    const match = await runMatch({ blue: swap ? second : first, red: swap ? first : second, seed: deriveSeed(seed, 'winrate', e) }, { platform, record: false });
    const winner = match.summary().winner;
    if (winner === 'draw') draws++;
    else if ((winner === 'blue') !== swap) firstWins++;
    else secondWins++;
  }
  return { first, second, episodes, firstWins, secondWins, draws };
}
