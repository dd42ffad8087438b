/**
 * Rollouts: a match played forward in a copy of its world, for the planner (planner.ts) to
 * compare choices by what follows them. A rollout copies the world, gives it a weapon-spread
 * stream of its own (the planner does not read the world's random state: a strategist that
 * knew every coming spread would plan against luck it cannot see), plays both sides for a
 * horizon with synchronous policies, and scores the end from one side's view.
 *
 * Everything here is plain arithmetic on the world and the policies' outputs, so a rollout
 * gives the same score in Node and in every browser, and a seeded planner the same match.
 */
import {
  type Action,
  type SimEvent,
  type Team,
  type World,
  OBS_SIZE,
  deriveSeed,
  idleAction,
  step,
  teamAgents,
  teamSituation,
} from '../sim';
import type { Policy, SkillId, SkillSet } from '../skills';
import { type RulesJudge, rulesJudge } from './behaviorTree';
import { STUDY_TREE, type TreeParameters } from './personas';
import { PolicyRunner } from './policyRunner';

/**
 * An independent copy of a world: stepping it leaves the original as it was. The config,
 * timings and zone are immutable and shared; the observation cache is fresh (it is derived).
 */
export function cloneWorld(world: World): World {
  const n = world.agents.length;
  return {
    ...world,
    agents: world.agents.map((a) => ({ ...a, stats: { ...a.stats } })),
    pickups: world.pickups.map((p) => ({ ...p })),
    progress: [world.progress[0], world.progress[1]],
    observationCache: { tick: new Int32Array(n).fill(-1), data: new Float32Array(n * OBS_SIZE) },
  };
}

/** What one agent of the planning side does in a rollout: follow the tree, or hold a skill. */
export type AgentMode = SkillId | 'tree';

/** How a side chooses its agents' policies inside rollouts. */
export interface SideModel {
  /** Set up for a rollout starting on `world`, with the side's skills there (a guess for the other side). */
  begin(world: World, current: readonly SkillId[]): void;
  /** On a skill tick, before the policies run: update the side's choices. */
  choose(world: World): void;
  /** The policy agent `slot` runs now. */
  policyOf(slot: number): Policy;
  /** The side's current skills (slot order), for the next rollout's guess. */
  readonly skills: readonly SkillId[];
}

/**
 * A side over skills, choosing with the behavior tree (reaction 0, noise 0, so its choice is
 * a pure function of the situation), where some agents may hold a skill of their own until
 * `holdUntil`: the planning side's candidates, and the `bt` model of an opponent.
 */
export class TreeSide implements SideModel {
  skills: SkillId[] = [];
  /** Per slot, every skill it ran on the skill ticks before `holdUntil` since begin(). */
  readonly heldWindow: Set<SkillId>[] = [];
  private modes: readonly AgentMode[] = [];
  private holdUntil = -1;
  private readonly judge: RulesJudge;

  constructor(
    private readonly team: Team,
    private readonly skillSet: SkillSet,
    params: TreeParameters = STUDY_TREE,
  ) {
    this.judge = rulesJudge(params);
  }

  /** Hold `modes` (per slot) for the ticks before `holdUntil`; the tree plays the rest. */
  hold(modes: readonly AgentMode[], holdUntil: number): void {
    this.modes = modes;
    this.holdUntil = holdUntil;
  }

  begin(_world: World, current: readonly SkillId[]): void {
    this.skills = [...current];
    this.heldWindow.length = 0;
    for (let slot = 0; slot < current.length; slot++) this.heldWindow.push(new Set());
  }

  choose(world: World): void {
    const held = world.tick < this.holdUntil;
    const tree = !held || this.modes.some((m) => m === 'tree') ? this.judge(teamSituation(world, this.team), this.skills) : null;
    for (let slot = 0; slot < this.skills.length; slot++) {
      const mode = held ? (this.modes[slot] ?? 'tree') : 'tree';
      this.skills[slot] = mode === 'tree' ? tree![slot]! : mode;
      if (held) this.heldWindow[slot]!.add(this.skills[slot]!);
    }
  }

  policyOf(slot: number): Policy {
    return this.skillSet[this.skills[slot]!];
  }
}

/** A side whose every agent runs one policy (the flat and heuristic teams). */
export class PolicySide implements SideModel {
  skills: SkillId[] = [];
  constructor(private readonly policy: Policy) {}
  begin(_world: World, current: readonly SkillId[]): void {
    this.skills = [...current];
  }
  choose(): void {}
  policyOf(): Policy {
    return this.policy;
  }
}

/**
 * The score of a rollout's end from `team`'s view, and why each term:
 * - the outcome (+-100): winning is the goal, and a rollout that sees it dwarfs the rest;
 * - zone progress (own minus the enemy's, in wins: 1 = a whole 8 s hold): the way to win,
 *   and an elimination already halves it, as the rules do;
 * - eliminations (0.25 each way, from the counters' change): a downed agent is 2 s off the
 *   map and a walk from its base, which the horizon may not reach;
 * - health (0.1 per agent's full health, living agents): what decides the next fight;
 * - presence in the zone (0.1 per agent, own minus enemy): who holds it when the horizon ends.
 */
export function scoreRollout(start: World, end: World, team: Team): number {
  const enemy: Team = team === 0 ? 1 : 0;
  if (end.outcome?.kind === 'win') return end.outcome.team === team ? 100 : -100;
  const winHold = end.timings.winHold;
  let score = (end.progress[team] - end.progress[enemy]) / winHold;
  const maxHealth = end.config.agent.maxHealth;
  for (let i = 0; i < end.agents.length; i++) {
    const a = end.agents[i]!;
    const sign = a.team === team ? 1 : -1;
    const was = start.agents[i]!.stats;
    score -= sign * 0.25 * (a.stats.deaths - was.deaths);
    if (a.alive) score += sign * (0.1 * (a.health / maxHealth) + (a.inZone ? 0.1 : 0));
  }
  return score;
}

/** Counts of what rollouts played, for the bench and the panel. */
export interface RolloutCounters {
  rollouts: number;
  ticks: number;
  /** Rollouts not played because they would have been the tree's own, move for move (planner.ts). */
  spared: number;
}

/**
 * Plays rollouts of one match for one side: its side model and the opponent's, reusing its
 * runners and action buffers from rollout to rollout.
 */
export class RolloutRunner {
  readonly counters: RolloutCounters = { rollouts: 0, ticks: 0, spared: 0 };
  private readonly actions: Action[];
  private readonly events: SimEvent[] = [];
  private readonly ownRunner: PolicyRunner;
  private readonly enemyRunner: PolicyRunner;
  private readonly enemy: Team;

  constructor(
    world: World,
    private readonly team: Team,
    readonly own: SideModel,
    readonly opponent: SideModel,
    private readonly seed: number,
  ) {
    this.enemy = team === 0 ? 1 : 0;
    this.actions = world.agents.map(() => idleAction());
    this.ownRunner = new PolicyRunner(world.config, teamAgents(world, team).map((a) => a.id));
    this.enemyRunner = new PolicyRunner(world.config, teamAgents(world, this.enemy).map((a) => a.id));
  }

  /**
   * Play `start` forward `horizonTicks` ticks (or to its end) and score it. Rollout `index`
   * of the decision at `start.tick` draws its weapon spread from its own seeded stream, so
   * the same planner seed plays the same rollouts. Both sides choose and run their policies
   * on its first tick, then on each skill tick, as the match does: the planner in a match
   * decides on skill ticks, and a teacher labelling a world between them (the exam samples
   * every 25 ticks) starts every rollout from fresh policies, not from the last rollout's actions.
   */
  play(start: World, ownSkills: readonly SkillId[], enemySkills: readonly SkillId[], horizonTicks: number, index: number): number {
    const world = cloneWorld(start);
    world.rngState = deriveSeed(this.seed, 'rollout', start.tick, index);
    this.own.begin(world, ownSkills);
    this.opponent.begin(world, enemySkills);
    const end = start.tick + horizonTicks;
    const every = world.config.skillEveryTicks;
    while (!world.outcome && world.tick < end) {
      if (world.tick === start.tick || world.tick % every === 0) {
        this.own.choose(world);
        this.opponent.choose(world);
        must(this.ownRunner.run(world, (slot) => this.own.policyOf(slot)));
        must(this.enemyRunner.run(world, (slot) => this.opponent.policyOf(slot)));
      }
      this.ownRunner.write(this.actions);
      this.enemyRunner.write(this.actions);
      this.events.length = 0;
      step(world, this.actions, this.events);
      this.counters.ticks++;
    }
    this.counters.rollouts++;
    return scoreRollout(start, world, this.team);
  }
}

/** Rollouts run policies synchronously (the network that plays is); an asynchronous one cannot be planned with. */
function must(result: void | Promise<void>): void {
  if (result instanceof Promise) throw new Error('a rollout needs policies that answer synchronously (the trained networks or scripted skills)');
}
