/**
 * The game as a multi-agent RL environment, in PettingZoo's parallel shape:
 * reset(seed?, options?) gives every agent's observation and info; step(actions) advances
 * one decision (4 physics ticks, the skills' 12.5 Hz) and gives observations, rewards,
 * terminations, truncations and infos per agent. VecEnv batches many environments into
 * flat arrays for rollouts.
 */
import {
  type Action,
  DEFAULT_CONFIG,
  type GameConfig,
  OBS_SIZE,
  Rng,
  type SimEvent,
  type Team,
  type World,
  createWorld,
  deriveSeed,
  idleAction,
  observe,
  outcomeSide,
  step,
} from '../sim';
import { type SkillContext, type SkillSet, skillContext } from '../skills';
import type { OpponentName, Opponents } from './config';
import { type League, episodeScore } from './league';
import { type OpponentDriver, createOpponent, createPolicyOpponent, createTeamDriver } from './opponents';
import type { Scenario } from './scenarios';

export const AGENT_NAMES = ['blue_0', 'blue_1', 'red_0', 'red_1'] as const;
export type AgentName = (typeof AGENT_NAMES)[number];
/** The environment's team size, and so the size every policy trained in it plays. */
export const AGENTS_PER_TEAM = AGENT_NAMES.length / 2;

/** What an agent's info says: alive or not, and the episode's outcome once there is one ('blue', 'red', 'draw'). */
export interface AgentInfo {
  readonly alive: boolean;
  readonly outcome: string | null;
}

/** What reset() gives, as PettingZoo's `observations, infos = env.reset(seed, options)`. */
export interface EnvReset {
  readonly observations: Record<string, Float32Array>;
  readonly infos: Record<string, AgentInfo>;
}

export interface EnvStep {
  readonly observations: Record<string, Float32Array>;
  readonly rewards: Record<string, number>;
  readonly terminations: Record<string, boolean>;
  readonly truncations: Record<string, boolean>;
  readonly infos: Record<string, AgentInfo>;
}

export interface ResetOptions {
  /**
   * false: the episode starts as a match does (agents at their bases, full health) instead
   * of the scenario's varied start. Default true.
   */
  readonly scenarioStart?: boolean;
}

export interface EnvOptions {
  readonly config?: GameConfig;
  /** Decision steps before the episode is truncated (the study's horizon: 200). */
  readonly horizonSteps?: number;
}

export class KothParallelEnv {
  readonly possibleAgents: readonly AgentName[] = AGENT_NAMES;
  /** Agents still in the episode (PettingZoo semantics: finished agents leave). */
  agents: AgentName[] = [];
  world: World;
  /** The game as the policies acting in this environment see it. */
  readonly context: SkillContext;
  private readonly config: GameConfig;
  private readonly horizon: number;
  private readonly actions: Action[] = AGENT_NAMES.map(() => idleAction());
  private readonly before = AGENT_NAMES.map(() => new Float32Array(OBS_SIZE));
  private readonly events: SimEvent[] = [];
  private steps = 0;

  constructor(
    readonly scenario: Scenario,
    options: EnvOptions = {},
  ) {
    this.config = options.config ?? DEFAULT_CONFIG;
    if (this.config.agent.perTeam !== AGENTS_PER_TEAM) {
      throw new Error(`the training environment plays ${AGENTS_PER_TEAM} agents per team; the config asks for ${this.config.agent.perTeam}`);
    }
    this.context = skillContext(this.config);
    this.horizon = options.horizonSteps ?? 200;
    this.world = createWorld(0, this.config);
  }

  /**
   * Start an episode. With a seed it is that seed's episode; without one, the next of a
   * stream that follows the last episode's seed (so unseeded resets are reproducible too).
   */
  reset(seed?: number, options: ResetOptions = {}): EnvReset {
    const episodeSeed = seed ?? deriveSeed(this.world.seed, 'next');
    this.world = createWorld(episodeSeed >>> 0, this.config);
    if (options.scenarioStart ?? true) this.scenario.setup(this.world, new Rng(deriveSeed(episodeSeed, 'scenario', this.scenario.name)));
    this.agents = [...AGENT_NAMES];
    this.steps = 0;
    const observations: Record<string, Float32Array> = {};
    const infos: Record<string, AgentInfo> = {};
    AGENT_NAMES.forEach((name, id) => {
      observations[name] = observe(this.world, id, this.before[id]!).slice();
      infos[name] = { alive: true, outcome: null };
    });
    return { observations, infos };
  }

  step(actions: Partial<Record<AgentName, Action>>): EnvStep {
    const { world } = this;
    AGENT_NAMES.forEach((name, id) => {
      const a = this.agents.includes(name) ? actions[name] : undefined;
      Object.assign(this.actions[id]!, a ?? idleAction());
      observe(world, id, this.before[id]!);
    });
    this.events.length = 0;
    for (let t = 0; t < this.config.skillEveryTicks && !world.outcome; t++) step(world, this.actions, this.events);
    this.steps++;

    const over = world.outcome !== null;
    const truncated = !over && this.steps >= this.horizon;
    const outcome = outcomeSide(world.outcome);
    const result: EnvStep = { observations: {}, rewards: {}, terminations: {}, truncations: {}, infos: {} };
    for (const name of this.agents) {
      const id = AGENT_NAMES.indexOf(name);
      const after = observe(world, id, new Float32Array(OBS_SIZE));
      const view = { world, agent: world.agents[id]!, events: this.events, before: this.before[id]!, after };
      result.observations[name] = after;
      result.rewards[name] = this.scenario.reward(view);
      result.terminations[name] = over || (this.scenario.finished?.(view) ?? false);
      result.truncations[name] = truncated;
      result.infos[name] = { alive: world.agents[id]!.alive, outcome };
    }
    this.agents = this.agents.filter((n) => !result.terminations[n] && !result.truncations[n]);
    return result;
  }
}

export interface CompletedEpisode {
  readonly return: number;
  readonly length: number;
}

/** Every environment mid-episode and the slots' running totals: what a resumed run needs to continue exactly. */
export interface VecEnvState {
  readonly seed: number;
  readonly opponents: Opponents;
  readonly nextEpisode: number;
  /**
   * Each environment's episode as its seed and the learners' actions so far: restoring
   * replays them, so the world and an opponent's memory (a tree's) come back exactly.
   */
  readonly episodes: readonly EpisodeHistory[];
  readonly obs: Float32Array;
  readonly active: Uint8Array;
  readonly slotReturn: Float64Array;
  readonly slotLength: Uint32Array;
  readonly completed: readonly CompletedEpisode[];
}

/** An episode under way, as the seed it started from and every learner action since. */
export interface EpisodeHistory {
  readonly seed: number;
  readonly actions: Float32Array;
  /** The league member it plays (league opponents only). */
  readonly member?: number;
}

/**
 * Many environments stepped together, with learner slots laid out in flat arrays:
 * slot = env * learnersPerEnv + learner. Episodes reset themselves when they end.
 */
export class VecEnv {
  readonly envs: KothParallelEnv[];
  learnerNames: readonly AgentName[];
  readonly obs: Float32Array;
  readonly rewards: Float32Array;
  /** 1 when the slot's episode ended on this step (no bootstrapping past it). */
  readonly dones: Uint8Array;
  /** 1 when the slot's sample counts: in the episode and alive at decision time. */
  readonly active: Uint8Array;
  readonly completed: CompletedEpisode[] = [];
  private readonly slotReturn: Float64Array;
  private readonly slotLength: Uint32Array;
  private readonly drivers: (OpponentDriver | null)[];
  /** Per environment and side, the team teaching the learners of that side (null: none there). */
  private readonly teachers: (OpponentDriver | null)[][];
  private readonly teacherActions: Action[] = AGENT_NAMES.map(() => idleAction());
  private readonly episodeSeeds: number[];
  /** Per environment, the league member its episode plays (-1: none). */
  private readonly members: number[];
  /** Per environment, the learners' actions of the episode so far (5 numbers per learner per step). */
  private readonly histories: number[][];
  private readonly opponentActions: Action[] = AGENT_NAMES.map(() => idleAction());
  private readonly stepActions: Partial<Record<AgentName, Action>>[];
  private nextEpisode = 0;

  constructor(
    scenario: Scenario,
    readonly numEnvs: number,
    private seed: number,
    private opponents: Opponents,
    options: EnvOptions = {},
    /** This VecEnv's first environment among all the trainer's (a worker's share starts there), so a mix of opponents is spread over all. */
    private readonly firstEnv = 0,
    /** The league that league opponents are drawn from (the trainer's; required for them). */
    private readonly league: League | null = null,
    /** The skills bt plays (opponents.ts trainedSkillSet; required for it). */
    private readonly trained: SkillSet | null = null,
    /**
     * A team that plays the learners' side unseen, as a teacher (teach()): its actions are
     * targets, never played. Null: none.
     */
    private readonly teacher: OpponentName | null = null,
  ) {
    if (Array.isArray(opponents) && opponents.length === 0) throw new Error("a VecEnv needs 'self', a league or at least one opponent");
    if (opponents !== 'self' && 'league' in opponents && !league) throw new Error('league opponents need the trainer\'s league');
    this.envs = Array.from({ length: numEnvs }, () => new KothParallelEnv(scenario, options));
    this.learnerNames = learnersAgainst(opponents);
    // Sized for the largest layout (self-play), so switching opponents keeps the buffers.
    const maxSlots = numEnvs * AGENT_NAMES.length;
    this.obs = new Float32Array(maxSlots * OBS_SIZE);
    this.rewards = new Float32Array(maxSlots);
    this.dones = new Uint8Array(maxSlots);
    this.active = new Uint8Array(maxSlots);
    this.slotReturn = new Float64Array(maxSlots);
    this.slotLength = new Uint32Array(maxSlots);
    this.stepActions = this.envs.map(() => ({}));
    this.drivers = this.envs.map(() => null);
    this.teachers = this.envs.map(() => [null, null]);
    this.episodeSeeds = this.envs.map(() => 0);
    this.members = this.envs.map(() => -1);
    this.histories = this.envs.map(() => []);
  }

  get learnersPerEnv(): number {
    return this.learnerNames.length;
  }

  get slots(): number {
    return this.numEnvs * this.learnersPerEnv;
  }

  /** The game as the policies acting in these environments see it (all share one config). */
  get context(): SkillContext {
    return this.envs[0]!.context;
  }

  /** Who the learners play now. */
  get currentOpponents(): Opponents {
    return this.opponents;
  }

  /** A copy of everything that carries from one step to the next (rewards and dones are rewritten by every step). */
  state(): VecEnvState {
    return {
      seed: this.seed,
      opponents: this.opponents,
      nextEpisode: this.nextEpisode,
      episodes: this.envs.map((_, e) => ({
        seed: this.episodeSeeds[e]!,
        actions: Float32Array.from(this.histories[e]!),
        ...(this.members[e]! >= 0 ? { member: this.members[e]! } : {}),
      })),
      obs: this.obs.slice(),
      active: this.active.slice(),
      slotReturn: this.slotReturn.slice(),
      slotLength: this.slotLength.slice(),
      completed: this.completed.map((c) => ({ ...c })),
    };
  }

  /** Continue from a state: each episode is replayed from its seed with the learners' recorded actions. */
  restore(state: VecEnvState): void {
    if (state.episodes.length !== this.numEnvs) throw new Error(`the saved state has ${state.episodes.length} environments, this VecEnv ${this.numEnvs}`);
    this.opponents = state.opponents;
    this.learnerNames = learnersAgainst(state.opponents);
    this.seed = state.seed;
    this.nextEpisode = state.nextEpisode;
    const width = this.learnersPerEnv * 5;
    state.episodes.forEach((episode, e) => {
      this.startEpisode(e, episode.seed, episode.member);
      for (let k = 0; k < episode.actions.length; k += width) {
        // The teacher saw every step the learners took, so its tree's memory is replayed too.
        this.teachEnv(e);
        this.stepEnv(e, episode.actions, k);
      }
    });
    this.obs.set(state.obs);
    this.active.set(state.active);
    this.slotReturn.set(state.slotReturn);
    this.slotLength.set(state.slotLength);
    this.completed.splice(0, this.completed.length, ...state.completed.map((c) => ({ ...c })));
  }

  /** Switch opponents (resets every environment). */
  setOpponents(opponents: Opponents): void {
    this.opponents = opponents;
    this.learnerNames = learnersAgainst(opponents);
    this.reset();
  }

  reset(): void {
    this.envs.forEach((_, e) => this.resetEnv(e));
  }

  private resetEnv(e: number): void {
    const { observations } = this.startEpisode(e, deriveSeed(this.seed, 'episode', this.nextEpisode++));
    this.learnerNames.forEach((name, l) => {
      const slot = e * this.learnersPerEnv + l;
      this.obs.set(observations[name]!, slot * OBS_SIZE);
      this.active[slot] = 1;
      this.slotReturn[slot] = 0;
      this.slotLength[slot] = 0;
    });
  }

  /** Start environment e's episode from `seed`; a league episode meets `member`, or one the league draws for the seed. */
  private startEpisode(e: number, seed: number, member?: number): EnvReset {
    const env = this.envs[e]!;
    this.episodeSeeds[e] = seed;
    this.histories[e]!.length = 0;
    this.members[e] = -1;
    const { opponents } = this;
    const skillEveryTicks = env.world.config.skillEveryTicks;
    if (opponents === 'self') this.drivers[e] = null;
    else if ('league' in opponents) {
      if (!this.league) throw new Error('league opponents need the trainer\'s league');
      const m = member ?? this.league.pick(seed);
      const chosen = this.league.member(m);
      this.members[e] = m;
      this.drivers[e] =
        chosen.kind === 'scripted' ? createOpponent(chosen.name, deriveSeed(seed, 'opponent'), skillEveryTicks, this.trained) : createPolicyOpponent(this.league.snapshotPolicy(chosen.index));
    } else this.drivers[e] = createOpponent(opponents[(this.firstEnv + e) % opponents.length]!, deriveSeed(seed, 'opponent'), skillEveryTicks, this.trained);
    const teacher = this.teacher;
    const sides = new Set(this.learnerNames.map(sideOf));
    this.teachers[e] = ([0, 1] as const).map((side) => (teacher && sides.has(side) ? createTeamDriver(teacher, side, deriveSeed(seed, 'teacher', side), skillEveryTicks, this.trained) : null));
    return env.reset(seed);
  }

  /**
   * The teacher's action for every learner slot in the state the learners now act in
   * (out[slot]), written into `out`. Call once per step, before step(): the teacher's tree
   * keeps its memory from one step to the next, as it would playing.
   */
  teach(out: Action[]): void {
    if (!this.teacher) throw new Error('this VecEnv has no teacher team');
    const per = this.learnersPerEnv;
    this.envs.forEach((_, e) => {
      this.teachEnv(e);
      this.learnerNames.forEach((name, l) => Object.assign(out[e * per + l]!, this.teacherActions[AGENT_NAMES.indexOf(name)]!));
    });
  }

  /** Environment e's teaching sides act on its world (into teacherActions). */
  private teachEnv(e: number): void {
    for (const driver of this.teachers[e]!) driver?.act(this.envs[e]!.world, this.teacherActions);
  }

  /**
   * Step environment e with the learners' actions at `actions[k..]` (5 numbers per learner);
   * record them for a replay.
   */
  private stepEnv(e: number, actions: ArrayLike<number>, k: number): EnvStep {
    const env = this.envs[e]!;
    const stepActions = this.stepActions[e]!;
    const history = this.histories[e]!;
    this.learnerNames.forEach((name, l) => {
      const a = k + l * 5;
      stepActions[name] = { move: actions[a]!, turn: actions[a + 1]!, strafe: actions[a + 2]!, dash: actions[a + 3]!, fire: actions[a + 4]! };
      for (let i = 0; i < 5; i++) history.push(Math.fround(actions[a + i]!));
    });
    const driver = this.drivers[e];
    if (driver) {
      driver.act(env.world, this.opponentActions);
      for (const id of [2, 3]) stepActions[AGENT_NAMES[id]!] = this.opponentActions[id]!;
    }
    return env.step(stepActions);
  }

  /** Apply one action per slot (5 numbers each), step every environment, fill the arrays. */
  step(actions: Float32Array): void {
    const per = this.learnersPerEnv;
    this.envs.forEach((env, e) => {
      const result = this.stepEnv(e, actions, e * per * 5);
      let episodeOver = env.agents.length === 0 || env.world.outcome !== null;
      this.learnerNames.forEach((name, l) => {
        const slot = e * per + l;
        const reward = result.rewards[name];
        this.rewards[slot] = reward ?? 0;
        this.dones[slot] = reward === undefined ? 0 : result.terminations[name] || result.truncations[name] ? 1 : 0;
        if (reward !== undefined) {
          this.slotReturn[slot]! += reward;
          this.slotLength[slot]!++;
          this.obs.set(result.observations[name]!, slot * OBS_SIZE);
        }
        if (this.dones[slot]) {
          this.completed.push({ return: this.slotReturn[slot]!, length: this.slotLength[slot]! });
        }
      });
      // Every learner gone: the episode is over for this environment.
      if (!this.learnerNames.some((n) => env.agents.includes(n))) episodeOver = true;
      if (episodeOver) {
        if (this.members[e]! >= 0) this.league!.record(this.members[e]!, episodeScore(outcomeSide(env.world.outcome), env.world.progress));
        this.resetEnv(e);
      }
      this.learnerNames.forEach((name, l) => {
        const slot = e * per + l;
        const id = AGENT_NAMES.indexOf(name);
        this.active[slot] = env.agents.includes(name) && env.world.agents[id]!.alive ? 1 : 0;
      });
    });
  }
}

/** The side an agent plays on: blue (0) or red (1). */
function sideOf(name: AgentName): Team {
  return AGENT_NAMES.indexOf(name) < 2 ? 0 : 1;
}

/** Who learns: the blue pair against fixed opponents, all four in self-play. */
export function learnersAgainst(opponents: Opponents): readonly AgentName[] {
  return opponents === 'self' ? AGENT_NAMES : AGENT_NAMES.slice(0, 2);
}
