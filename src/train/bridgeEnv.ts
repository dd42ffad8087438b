/**
 * The environments the Python package (python/hillmind) steps, many at once: each is a
 * Match (the same code `npm run match` plays), with one side played from outside.
 *
 * - control level: the outside writes every agent's 5-part action (move, turn, strafe in
 *   [-1, 1]; dash, fire on above 0.5) at the skills' rate (every skillEveryTicks ticks,
 *   12.5 Hz) and reads the 20-number observation. With an opponent team id the outside
 *   plays blue's agents; without one it plays all four (self-play).
 * - strategist level: the outside picks a skill per blue agent (0-3: navigate, combat,
 *   secure, retreat) at the strategist's rate; the trained skills run here; it reads the
 *   situation the strategists read, as numbers (STRATEGIST_OBS). An opponent is required.
 *
 * Rewards: 'match' (win +1, loss -1 at the end, plus the zone progress the team gained
 * less the enemy's, as a share of the hold that wins), or a skill's training reward
 * (train/scenarios.ts, control level only). An episode ends with the match: terminated by a
 * win, truncated by the time limit (the draw; Gymnasium's truncation, so a learner
 * bootstraps past it); its infos carry the outcome and the final state hash, so a run can
 * be checked against `npm run match`.
 */
import { Match, type TeamFactory } from '../match';
import {
  type Action,
  type AgentSituation,
  type DistanceBand,
  OBS_SIZE,
  Rng,
  type SimEvent,
  type Team,
  type World,
  deriveSeed,
  hashWorld,
  idleAction,
  observe,
  outcomeSide,
  sanitizeAction,
  teamAgents,
  teamSituation,
} from '../sim';
import { SKILL_IDS, type SkillId } from '../skills';
import { HierarchicalController, type Platform, type Strategist, type TeamController } from '../teams';
import { MODEL_NAMES, type ModelName, SCENARIOS } from './scenarios';

/** 2: a step's answer also carries truncations (the time limit's draw). */
export const BRIDGE_PROTOCOL = 2;
export const BRIDGE_LEVELS = ['control', 'strategist'] as const;
export type BridgeLevel = (typeof BRIDGE_LEVELS)[number];
export const ACTION_SIZE = 5;
/** Numbers per agent of the strategist level's observation (see situationNumbers). */
export const STRATEGIST_OBS = 20;
/** Ticks between the strategist level's steps: the strategists' 2 Hz. */
export const STRATEGIST_PERIOD_TICKS = 25;

export interface BridgeOptions {
  readonly level: BridgeLevel;
  /** Environments stepped together. */
  readonly envs: number;
  /** The team the outside plays against; null (control level only): it plays both teams. */
  readonly opponent: string | null;
  /** 'match', or a skill's training reward (control level). */
  readonly reward: 'match' | ModelName;
  /** Start episodes as the reward's training scenario does (varied starts); default false: as a match. */
  readonly scenarioStart?: boolean;
}

/** What the outside learns at the handshake. */
export interface BridgeSpec {
  readonly protocol: number;
  readonly level: BridgeLevel;
  readonly envs: number;
  readonly agents: readonly string[];
  readonly obsSize: number;
  /** Control: 5 numbers per agent; strategist: 1 (the skill's index). */
  readonly actionSize: number;
  readonly skills: readonly SkillId[];
  readonly obsSpecVersion: number;
  readonly actionSpecVersion: number;
  readonly ticksPerStep: number;
}

export interface EpisodeEnd {
  readonly env: number;
  readonly outcome: string;
  readonly ticks: number;
  readonly hash: string;
}

export interface BridgeStep {
  readonly obs: Float32Array;
  readonly rewards: Float32Array;
  /** 1 where the agent's episode ended this step by a win (or had ended so, and waits for a reset). */
  readonly terminations: Uint8Array;
  /** 1 where it ended by the time limit instead (a draw). */
  readonly truncations: Uint8Array;
  readonly ends: readonly EpisodeEnd[];
}

/** Check options from outside; throws saying what is expected. */
export function checkBridgeOptions(options: BridgeOptions): void {
  if (!(BRIDGE_LEVELS as readonly string[]).includes(options.level)) throw new Error(`level must be one of ${BRIDGE_LEVELS.join(', ')}, got '${options.level}'`);
  if (!Number.isInteger(options.envs) || options.envs < 1 || options.envs > 4096) throw new Error(`envs must be a whole number from 1 to 4096, got ${options.envs}`);
  if (options.level === 'strategist' && options.opponent === null) throw new Error('the strategist level needs an opponent team id');
  if (options.reward !== 'match' && !(MODEL_NAMES as readonly string[]).includes(options.reward)) {
    throw new Error(`reward must be match or one of ${MODEL_NAMES.join(', ')}, got '${options.reward}'`);
  }
  if (options.level === 'strategist' && options.reward !== 'match') throw new Error("the strategist level's reward is 'match'");
}

const band = (b: DistanceBand | null) => (b === null ? -1 : b === 'NEAR' ? 0 : b === 'MID' ? 0.5 : 1);
const ZONE_STATUS = ['empty', 'blue', 'red', 'contested'] as const;

/** An agent's situation as STRATEGIST_OBS numbers: what the strategists read, plus its current skill. */
export function situationNumbers(world: World, team: Team, current: readonly SkillId[], out: Float32Array, offset: number): void {
  const s = teamSituation(world, team);
  s.agents.forEach((a: AgentSituation, slot) => {
    const o = offset + slot * STRATEGIST_OBS;
    const values = [
      a.alive ? 1 : 0,
      a.health === 'HIGH' ? 1 : a.health === 'MEDIUM' ? 0.5 : 0,
      band(a.zone),
      a.inZone ? 1 : 0,
      a.enemyVisible ? 1 : 0,
      band(a.enemy),
      a.pickupPresent ? 1 : 0,
      band(a.pickup),
      band(s.allyDistance),
      s.time === 'PLENTY' ? 1 : s.time === 'LIMITED' ? 0.5 : 0,
      s.progressPercent / 100,
      s.enemyProgressPercent / 100,
      ...ZONE_STATUS.map((z) => (s.zoneStatus === z ? 1 : 0)),
      ...SKILL_IDS.map((k) => (current[slot] === k ? 1 : 0)),
    ];
    for (let i = 0; i < STRATEGIST_OBS; i++) out[o + i] = values[i]!;
  });
}

/** A side whose actions come from outside, held between the outside's steps. */
class OutsideControl implements TeamController {
  readonly id = 'python';
  readonly currentSkills: (SkillId | null)[];
  readonly held: Action[];

  constructor(
    readonly team: Team,
    readonly agentIds: readonly number[],
  ) {
    this.currentSkills = agentIds.map(() => null);
    this.held = agentIds.map(() => idleAction());
  }

  act(_world: World, actions: Action[]): void {
    this.agentIds.forEach((id, slot) => Object.assign(actions[id]!, this.held[slot]!));
  }
}

/** A strategist whose next choice comes from outside; it answers once per choice. */
class OutsideStrategist implements Strategist {
  readonly source = 'rule' as const;
  next: SkillId[] | null = null;

  decide(): { skills: SkillId[] } | null {
    const skills = this.next;
    this.next = null;
    return skills ? { skills } : null;
  }
}

interface Slot {
  match: Match;
  /** Agent ids the outside plays, in the order of the spec's agents. */
  ids: number[];
  control: OutsideControl[];
  strategist: OutsideStrategist | null;
  before: Float32Array;
  progress: [number, number];
  /** How the episode ended (null: under way): it waits for its next reset so. */
  ended: 'terminated' | 'truncated' | null;
}

export class BridgeEnvs {
  readonly spec: BridgeSpec;
  private readonly slots: Slot[] = [];
  private readonly events: SimEvent[] = [];

  constructor(
    private readonly platform: Platform,
    private readonly options: BridgeOptions,
    versions: { readonly obs: number; readonly action: number },
  ) {
    checkBridgeOptions(options);
    const both = options.opponent === null;
    const agents = both ? ['blue_0', 'blue_1', 'red_0', 'red_1'] : ['blue_0', 'blue_1'];
    const control = options.level === 'control';
    this.spec = {
      protocol: BRIDGE_PROTOCOL,
      level: options.level,
      envs: options.envs,
      agents,
      obsSize: control ? OBS_SIZE : STRATEGIST_OBS,
      actionSize: control ? ACTION_SIZE : 1,
      skills: SKILL_IDS,
      obsSpecVersion: versions.obs,
      actionSpecVersion: versions.action,
      ticksPerStep: control ? 4 : STRATEGIST_PERIOD_TICKS,
    };
  }

  private get perEnv(): number {
    return this.spec.agents.length;
  }

  /**
   * Start episodes on their seeds: every environment's (one seed each), or those `which`
   * names (one seed each, the others go on; only once every environment has started).
   * Gives every environment's observation. A refused reset starts nothing.
   */
  async reset(seeds: readonly number[], which?: readonly number[]): Promise<Float32Array> {
    const { envs: count } = this.options;
    const envs = which ?? Array.from({ length: count }, (_, e) => e);
    if (seeds.length !== envs.length) throw new Error(`reset needs ${envs.length} seeds, got ${seeds.length}`);
    for (const e of envs) if (!Number.isInteger(e) || e < 0 || e >= count) throw new Error(`no environment ${e}: there are ${count}`);
    const twice = envs.find((e, i) => envs.indexOf(e) !== i);
    if (twice !== undefined) throw new Error(`environment ${twice} is named twice`);
    if (which) {
      const waiting = Array.from({ length: count }, (_, e) => e).filter((e) => !this.slots[e] && !which.includes(e));
      if (waiting.length) throw new Error(`environment${waiting.length > 1 ? 's' : ''} ${waiting.join(', ')} ${waiting.length > 1 ? 'have' : 'has'} not started: reset every environment (no envs) first`);
    }
    const started: Slot[] = [];
    try {
      for (const seed of seeds) started.push(await this.start(seed >>> 0));
    } catch (err) {
      for (const slot of started) slot.match.close();
      throw err;
    }
    envs.forEach((e, i) => {
      this.slots[e]?.match.close(); // the episode this one replaces, finished or abandoned
      this.slots[e] = started[i]!;
    });
    const obs = new Float32Array(count * this.perEnv * this.spec.obsSize);
    this.slots.forEach((slot, e) => this.observeInto(slot, obs, e));
    return obs;
  }

  /** Close every environment's match (its teams' requests in flight are aborted); the outside is done with them. */
  close(): void {
    for (const slot of this.slots) slot.match.close();
  }

  private async start(seed: number): Promise<Slot> {
    const { level, opponent } = this.options;
    const strategist = level === 'strategist' ? new OutsideStrategist() : null;
    const control: OutsideControl[] = [];
    const outside =
      (team: Team): TeamFactory =>
      async (ctx) => {
        if (strategist) return new HierarchicalController('python', ctx.team, strategist, await this.platform.models.skillSet());
        const c = new OutsideControl(team, (team === 0 ? [0, 1] : [2, 3]).slice(0, ctx.config.agent.perTeam));
        control.push(c);
        return c;
      };
    const match = await Match.create(
      { blue: 'python', red: opponent ?? 'python', seed },
      { platform: this.platform, record: false, controllers: { blue: outside(0), ...(opponent === null ? { red: outside(1) } : {}) } },
    );
    if (this.options.scenarioStart && this.options.reward !== 'match') {
      SCENARIOS[this.options.reward].setup(match.world, new Rng(deriveSeed(seed, 'scenario', this.options.reward)));
      match.world.observationCache.tick.fill(-1);
    }
    const ids = opponent === null ? [0, 1, 2, 3] : teamAgents(match.world, 0).map((a) => a.id);
    return { match, ids, control, strategist, before: new Float32Array(ids.length * OBS_SIZE), progress: [0, 0], ended: null };
  }

  private observeInto(slot: Slot, out: Float32Array, env: number): void {
    const base = env * this.perEnv * this.spec.obsSize;
    if (this.options.level === 'control') slot.ids.forEach((id, i) => observe(slot.match.world, id, out, base + i * OBS_SIZE));
    else situationNumbers(slot.match.world, 0, slot.match.controllers[0].currentSkills as SkillId[], out, base);
  }

  /**
   * One step of every environment whose episode is under way: apply the actions (control:
   * envs x agents x 5 numbers; strategist: envs x agents skill indices), play the step's
   * ticks, and read what follows. A finished environment waits for its next reset.
   */
  async step(actions: Float64Array | Float32Array): Promise<BridgeStep> {
    const { envs } = this.options;
    const width = this.perEnv * this.spec.actionSize;
    if (actions.length !== envs * width) throw new Error(`step needs ${envs * width} numbers (${envs} envs x ${this.perEnv} agents x ${this.spec.actionSize}), got ${actions.length}`);
    if (this.slots.length < envs) throw new Error('step before reset: reset every environment first');
    // Every environment's skills are checked before any environment moves: a refused step moves nothing.
    const skills = this.options.level === 'strategist' ? this.slots.map((_, e) => this.skillsAt(actions, e)) : null;
    const obs = new Float32Array(envs * this.perEnv * this.spec.obsSize);
    const rewards = new Float32Array(envs * this.perEnv);
    const ended = { terminated: new Uint8Array(envs * this.perEnv), truncated: new Uint8Array(envs * this.perEnv) };
    const ends: EpisodeEnd[] = [];
    for (let e = 0; e < envs; e++) {
      const slot = this.slots[e]!;
      if (slot.ended) {
        this.observeInto(slot, obs, e);
        ended[slot.ended].fill(1, e * this.perEnv, (e + 1) * this.perEnv);
        continue;
      }
      if (slot.strategist) slot.strategist.next = skills![e]!;
      else this.hold(slot, actions, e * width);
      const world = slot.match.world;
      if (this.options.reward !== 'match') slot.ids.forEach((id, i) => observe(world, id, slot.before, i * OBS_SIZE));
      this.events.length = 0;
      const until = world.tick + this.spec.ticksPerStep;
      while (!slot.match.done && world.tick < until) {
        const pending = slot.match.advance();
        if (pending) await pending;
        for (const ev of slot.match.events) this.events.push(ev);
      }
      this.observeInto(slot, obs, e);
      this.reward(slot, obs, rewards, e);
      if (slot.match.done) {
        slot.ended = world.outcome?.kind === 'draw' ? 'truncated' : 'terminated';
        ended[slot.ended].fill(1, e * this.perEnv, (e + 1) * this.perEnv);
        ends.push({ env: e, outcome: outcomeSide(world.outcome)!, ticks: world.tick, hash: hashWorld(world) });
      }
    }
    return { obs, rewards, terminations: ended.terminated, truncations: ended.truncated, ends };
  }

  /** The skills the strategist level's actions pick for environment `env`; throws naming a bad one. */
  private skillsAt(actions: Float64Array | Float32Array, env: number): SkillId[] {
    return Array.from({ length: this.perEnv }, (_, agent) => {
      const k = actions[env * this.perEnv + agent]!;
      if (!Number.isInteger(k) || k < 0 || k >= SKILL_IDS.length) throw new Error(`a skill is a whole number from 0 to ${SKILL_IDS.length - 1}, got ${k} (environment ${env}, agent ${agent})`);
      return SKILL_IDS[k]!;
    });
  }

  /** The control level's actions for environment `at`, held by its outside agents until the next step. */
  private hold(slot: Slot, actions: Float64Array | Float32Array, at: number): void {
    let i = 0;
    for (const c of slot.control) {
      for (const held of c.held) {
        const o = at + i++ * ACTION_SIZE;
        const raw = { move: actions[o]!, turn: actions[o + 1]!, strafe: actions[o + 2]!, dash: actions[o + 3]!, fire: actions[o + 4]! };
        sanitizeAction(raw, held); // as step() applies an action, so what is held is what plays
      }
    }
  }

  /** Rewards of the step just played; `obs` holds its observations (the control level's are the 'after' of a skill's reward). */
  private reward(slot: Slot, obs: Float32Array, rewards: Float32Array, env: number): void {
    const world = slot.match.world;
    const base = env * this.perEnv;
    if (this.options.reward !== 'match') {
      const scenario = SCENARIOS[this.options.reward];
      slot.ids.forEach((id, i) => {
        const at = (base + i) * OBS_SIZE;
        const after = obs.subarray(at, at + OBS_SIZE);
        rewards[base + i] = scenario.reward({ world, agent: world.agents[id]!, events: this.events, before: slot.before.subarray(i * OBS_SIZE, (i + 1) * OBS_SIZE), after });
      });
      return;
    }
    const hold = world.timings.winHold;
    const gained = [world.progress[0] - slot.progress[0], world.progress[1] - slot.progress[1]];
    slot.progress = [world.progress[0], world.progress[1]];
    slot.ids.forEach((id, i) => {
      const team = world.agents[id]!.team;
      let r = (gained[team]! - gained[1 - team]!) / hold;
      if (world.outcome?.kind === 'win') r += world.outcome.team === team ? 1 : -1;
      rewards[base + i] = r;
    });
  }
}
