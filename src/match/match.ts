/**
 * One match, advanced a tick at a time: controllers act, the world steps, metrics and the
 * replay record follow. Headless runs loop it to the end (runMatch); the browser advances
 * it from its frame loop.
 */
import {
  type Action,
  DEFAULT_CONFIG,
  type GameConfig,
  type SimEvent,
  type TeamName,
  type World,
  createWorld,
  deriveSeed,
  hashWorld,
  idleAction,
  step,
} from '../sim';
import { type Decision, type Platform, type TeamContext, type TeamController, createTeam, teamName } from '../teams';
import { type MatchSummary, MatchMetrics } from './metrics';
import { type ReplayFile, ReplayRecorder } from './replay';

export interface MatchSpec {
  readonly blue: string;
  readonly red: string;
  readonly seed: number;
  readonly config?: GameConfig;
}

/** Builds one team's controller from the context a registry team would get. */
export type TeamFactory = (ctx: TeamContext) => TeamController | Promise<TeamController>;

export interface MatchOptions {
  /** Where the teams find their models, language model and clock (the entry point's). */
  readonly platform: Platform;
  /** Keep a replay record (default true). */
  readonly record?: boolean;
  /** Told of every strategist decision as it applies. */
  readonly onDecision?: (decision: Decision) => void;
  /**
   * Build a side's controller with this factory instead of `createTeam(spec.blue | spec.red)`
   * (the browser's human team). The spec's id still derives that side's seed.
   */
  readonly controllers?: { readonly blue?: TeamFactory; readonly red?: TeamFactory };
}

export class Match {
  /** Events of the latest tick (reused: read them before the next advance). */
  readonly events: SimEvent[] = [];
  private readonly actions: Action[];

  private constructor(
    readonly world: World,
    readonly controllers: readonly [TeamController, TeamController],
    readonly metrics: MatchMetrics,
    readonly recorder: ReplayRecorder | null,
  ) {
    this.actions = world.agents.map(() => idleAction());
  }

  static async create(spec: MatchSpec, options: MatchOptions): Promise<Match> {
    const parts = matchParts(spec, options.record, options.onDecision);
    const { world, onDecision } = parts;
    const { platform } = options;
    const config = world.config;
    const blueCtx: TeamContext = { team: 0, seed: sideSeed(spec.seed, 'blue', spec.blue), config, platform, onDecision };
    const redCtx: TeamContext = { team: 1, seed: sideSeed(spec.seed, 'red', spec.red), config, platform, onDecision };
    const factories = options.controllers ?? {};
    const blue = await (factories.blue ? factories.blue(blueCtx) : createTeam(spec.blue, blueCtx));
    const red = await (factories.red ? factories.red(redCtx) : createTeam(spec.red, redCtx));
    return new Match(world, [blue, red], parts.metrics, parts.recorder);
  }

  /**
   * A match whose controllers the caller builds at once from its world and the decision
   * hook (replay verification plays recorded decisions and actions this way, synchronously).
   */
  static withControllers(
    spec: MatchSpec,
    build: (world: World, onDecision: (decision: Decision) => void) => readonly [TeamController, TeamController],
    options: { readonly record?: boolean } = {},
  ): Match {
    const { world, metrics, recorder, onDecision } = matchParts(spec, options.record);
    return new Match(world, build(world, onDecision), metrics, recorder);
  }

  get done(): boolean {
    return this.world.outcome !== null;
  }

  /** The actions applied on the latest tick, indexed by agent id. */
  get lastActions(): readonly Action[] {
    return this.actions;
  }

  /** Play one tick. Returns a promise only when a controller has to wait. */
  advance(): void | Promise<void> {
    const blueActed = this.controllers[0].act(this.world, this.actions);
    if (blueActed instanceof Promise) return blueActed.then(() => this.afterBlue());
    return this.afterBlue();
  }

  private afterBlue(): void | Promise<void> {
    const redActed = this.controllers[1].act(this.world, this.actions);
    if (redActed instanceof Promise) return redActed.then(() => this.stepWorld());
    this.stepWorld();
  }

  private stepWorld(): void {
    this.recorder?.record(this.world.tick, this.actions);
    this.events.length = 0;
    step(this.world, this.actions, this.events);
    this.recorder?.checkpoint(this.world);
    this.metrics.recordTick(this.world, this.controllers);
  }

  /**
   * Close both teams: a request still out (a language model's call) is aborted and none is
   * sent again. Whoever plays a match closes it when it ends or is abandoned (runMatch
   * does); the world, metrics and record stay readable. Closing twice is harmless.
   */
  close(): void {
    for (const controller of this.controllers) controller.close?.();
  }

  summary(): MatchSummary {
    return this.metrics.summary(this.world, this.controllers, hashWorld(this.world));
  }

  replay(): ReplayFile {
    if (!this.recorder) throw new Error('this match was created with record: false and has no replay');
    const [blue, red] = this.controllers.map((c) => c.people?.(this.world));
    return this.recorder.file(this.world, { blue: this.controllers[0].id, red: this.controllers[1].id }, { ...(blue ? { blue } : {}), ...(red ? { red } : {}) });
  }
}

/** A new match's world, metrics and record, and the hook through which decisions reach them. */
function matchParts(spec: MatchSpec, record: boolean | undefined, told?: (decision: Decision) => void) {
  const world = createWorld(spec.seed, spec.config ?? DEFAULT_CONFIG);
  const metrics = new MatchMetrics(world.agents.length);
  const recorder = record === false ? null : new ReplayRecorder(world.agents.length);
  const onDecision = (decision: Decision) => {
    metrics.recordDecision(decision);
    recorder?.decisions.push(decision);
    told?.(decision);
  };
  return { world, metrics, recorder, onDecision };
}

/**
 * The seed of a side's controller (never the world's): from the match seed, the side and
 * its team's canonical name, so `llm:rate=1:format=json` and `llm:format=json:rate=1` play
 * alike. Replay verification builds strategists again from it.
 */
export function sideSeed(seed: number, side: TeamName, team: string): number {
  return deriveSeed(seed, side, seedName(team));
}

function seedName(team: string): string {
  try {
    return teamName(team);
  } catch {
    return team; // a side built by a factory may carry a name the registry does not know
  }
}

/** Play a match to its end, and close its teams (also when a tick throws). */
export async function runMatch(spec: MatchSpec, options: MatchOptions): Promise<Match> {
  const match = await Match.create(spec, options);
  try {
    while (!match.done) {
      const pending = match.advance();
      if (pending) await pending;
    }
  } finally {
    match.close();
  }
  return match;
}
