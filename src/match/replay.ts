/**
 * Replay files: everything that reproduces a match without its controllers (no model, no
 * LLM, no person needed): the config, the seed and every agent's action whenever it
 * changed. Decisions are kept too, for reading. Verification re-simulates and compares the
 * final state hash.
 *
 * Format (JSON): { format: "hillmind-replay", version: 1, seed, config, teams, ticks,
 * finalHash, outcome, actions: [[tick, agent, move, turn, strafe, dash, fire], ...],
 * decisions: [{tick, team, skills, source, rationale?, timing?}, ...] }. An action row
 * applies from its tick until the agent's next row. A decision's timing (asynchronous
 * strategists: when it was asked for, how long the answer took, what asked, from the cache
 * or not) says how the strategist behaved; verification does not need it.
 */
import { z } from 'zod';
import {
  type Action,
  ACTION_SPEC_VERSION,
  type GameConfig,
  OBS_SPEC_VERSION,
  type World,
  createWorld,
  hashWorld,
  actionsEqual,
  copyAction,
  idleAction,
  outcomeSide,
  parseJsonText,
  sanitizeAction,
  step,
} from '../sim';
import { SKILL_IDS } from '../skills';
import type { DecisionTiming, TimedDecision } from '../teams';

export const REPLAY_FORMAT = 'hillmind-replay';
export const REPLAY_VERSION = 1;

export type ActionRow = [tick: number, agent: number, move: number, turn: number, strafe: number, dash: number, fire: number];

const point = z.object({ x: z.number(), y: z.number() });
const rect = z.object({ minX: z.number(), minY: z.number(), maxX: z.number(), maxY: z.number() });
const positive = z.number().positive();

const configSchema = z.object({
  tickHz: z.number().int().positive(),
  skillEveryTicks: z.number().int().positive(),
  arena: z.object({
    width: positive,
    height: positive,
    walls: z.array(rect),
    spawns: z.tuple([z.array(point), z.array(point)]),
  }),
  agent: z.object({ radius: positive, speed: positive, turnRate: positive, maxHealth: positive, perTeam: z.number().int().positive() }),
  weapon: z.object({ range: positive, cooldown: positive, damage: positive, spreadStill: z.number().min(0), spreadMoving: z.number().min(0) }),
  dash: z.object({ duration: positive, cooldown: positive, speedMultiplier: positive }),
  pickups: z.object({ positions: z.array(point), collectRadius: positive, respawn: positive }),
  zone: z.object({ radius: positive, spawnArea: rect, wallClearance: z.number().min(0) }),
  respawnDelay: positive,
  winHoldSeconds: positive,
  progressKeptOnElimination: z.number().min(0).max(1),
  episodeSeconds: positive,
  visionRange: positive,
  rayLength: positive,
}) satisfies z.ZodType<GameConfig>;

const timingSchema = z.object({
  requestTick: z.number().int().min(0),
  latencyMs: z.number().min(0),
  trigger: z.string(),
  cached: z.boolean().optional(),
}) satisfies z.ZodType<DecisionTiming>;

const decisionSchema = z.object({
  tick: z.number().int().min(0),
  team: z.union([z.literal(0), z.literal(1)]),
  skills: z.array(z.enum(SKILL_IDS)),
  source: z.enum(['behavior-tree', 'llm', 'random', 'human', 'rule']),
  rationale: z.string().optional(),
  timing: timingSchema.optional(),
});

const replaySchema = z.object({
  format: z.literal(REPLAY_FORMAT),
  version: z.literal(REPLAY_VERSION),
  obsSpecVersion: z.number().int(),
  actionSpecVersion: z.number().int(),
  seed: z.number().int().min(0).max(0xffffffff),
  config: configSchema,
  teams: z.object({ blue: z.string(), red: z.string() }),
  ticks: z.number().int().min(0),
  finalHash: z.string().regex(/^[0-9a-f]{16}$/),
  outcome: z.enum(['blue', 'red', 'draw', 'unfinished']),
  actions: z.array(z.tuple([z.number().int().min(0), z.number().int().min(0), z.number(), z.number(), z.number(), z.number(), z.number()])),
  decisions: z.array(decisionSchema),
});

export type ReplayFile = z.infer<typeof replaySchema>;

/** Collects the action changes of a match as it runs. */
export class ReplayRecorder {
  readonly actions: ActionRow[] = [];
  readonly decisions: TimedDecision[] = [];
  private readonly last: Action[];
  private readonly scratch: Action = idleAction();

  constructor(agentCount: number) {
    // Start from a value no controller writes, so every agent's first action is recorded.
    this.last = Array.from({ length: agentCount }, () => ({ ...idleAction(), move: NaN }));
  }

  /**
   * Record the actions step() is about to apply; `tick` is world.tick before that step.
   * Actions are stored as step() applies them (clamped, NaN as 0, binaries 0/1), so every
   * recorded match survives JSON and replays exactly.
   */
  record(tick: number, actions: readonly Action[]): void {
    actions.forEach((raw, agent) => {
      const a = sanitizeAction(raw, this.scratch);
      const l = this.last[agent]!;
      if (actionsEqual(a, l)) return;
      copyAction(a, l);
      this.actions.push([tick, agent, a.move, a.turn, a.strafe, a.dash, a.fire]);
    });
  }

  file(world: World, teams: { blue: string; red: string }): ReplayFile {
    return {
      format: REPLAY_FORMAT,
      version: REPLAY_VERSION,
      obsSpecVersion: OBS_SPEC_VERSION,
      actionSpecVersion: ACTION_SPEC_VERSION,
      seed: world.seed,
      config: world.config as ReplayFile['config'],
      teams,
      ticks: world.tick,
      finalHash: hashWorld(world),
      outcome: outcomeSide(world.outcome) ?? 'unfinished',
      actions: this.actions,
      decisions: this.decisions.map((d) => ({ ...d, skills: [...d.skills] })),
    };
  }
}

/** Parse and validate replay JSON text; throws an Error that says what is wrong. */
export function parseReplay(text: string, source = 'replay'): ReplayFile {
  const json = parseJsonText(text, source);
  const header = z.object({ format: z.literal(REPLAY_FORMAT), version: z.unknown().optional() }).safeParse(json);
  if (!header.success) {
    throw new Error(`${source} is not a Hillmind replay: expected "format": "${REPLAY_FORMAT}"`);
  }
  if (header.data.version !== REPLAY_VERSION) {
    const found = typeof header.data.version === 'number' ? `replay version ${header.data.version}` : `a replay without a numeric "version"`;
    throw new Error(`${source} is ${found}; this build reads version ${REPLAY_VERSION}`);
  }
  const parsed = replaySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${source} is malformed at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

/**
 * Re-run a replay's actions on a fresh world, yielding the world after each step (the
 * browser's player steps through it); returns the final world.
 */
export function* replayTicks(replay: ReplayFile): Generator<World, World> {
  const world = createWorld(replay.seed, replay.config);
  const actions = world.agents.map(() => idleAction());
  let next = 0;
  const rows = replay.actions;
  while (world.tick < replay.ticks && !world.outcome) {
    const tick = world.tick;
    while (next < rows.length && rows[next]![0] <= tick) {
      const [, agent, move, turn, strafe, dash, fire] = rows[next++]!;
      const a = actions[agent];
      if (!a) throw new Error(`replay action row ${next - 1} names agent ${agent}; the world has ${actions.length}`);
      Object.assign(a, { move, turn, strafe, dash, fire });
    }
    step(world, actions);
    yield world;
  }
  return world;
}

export interface VerifyResult {
  /** The re-simulation reached the replay's final hash at its tick count. */
  readonly ok: boolean;
  readonly expectedHash: string;
  readonly actualHash: string;
  readonly ticks: number;
  /** Seconds of sole zone occupation per team at the end of the re-simulation (what servers store, never the file's word). */
  readonly progress: { readonly blue: number; readonly red: number };
}

/** Re-simulate a replay and compare its final state hash. */
export function verifyReplay(replay: ReplayFile): VerifyResult {
  const ticks = replayTicks(replay);
  let result = ticks.next();
  while (!result.done) result = ticks.next();
  const world = result.value;
  const actualHash = hashWorld(world);
  const hz = world.config.tickHz;
  return {
    ok: actualHash === replay.finalHash && world.tick === replay.ticks,
    expectedHash: replay.finalHash,
    actualHash,
    ticks: world.tick,
    progress: { blue: world.progress[0] / hz, red: world.progress[1] / hz },
  };
}
