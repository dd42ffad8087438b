/**
 * Replay files: everything that reproduces a match without its controllers (no model, no
 * LLM, no person needed): the config, the seed and every agent's action whenever it
 * changed, with the strategists' decisions. Verification (verify.ts) re-simulates and
 * checks every claim.
 *
 * Format (JSON): { format: "hillmind-replay", version: 2, obsSpecVersion, actionSpecVersion,
 * seed, config, teams, people?, ticks, finalHash, checkpoints: { every, hashes }, outcome,
 * actions: [[tick, agent, move, turn, strafe, dash, fire], ...], decisions: [{tick, team,
 * skills, source, rationale?, timing?}, ...] }. `checkpoints.hashes` is the state hash (16 hex
 * digits) after every `every`-th tick, concatenated, so verification can say where a
 * re-simulation first leaves the recorded match, not only that it ended elsewhere. An action row applies from its tick until the agent's next row; rows are in tick
 * order, at most one per agent and tick, with each value as step() applies it (continuous
 * parts in [-1, 1], dash and fire 0 or 1). A decision's timing (asynchronous strategists:
 * when it was asked for, how long the answer took, what asked, from the cache or not) says
 * how the strategist behaved; verification does not need it. `people` (optional, present
 * when people played) says per side which agent ids people played and the AI team beside
 * them (`{ blue: { agents: [0], teammate: 'bt-scripted' } }`), so verification checks that
 * teammate's agents and takes only the people's actions as recorded; files from before it
 * was recorded still read, and their human sides are not checked.
 *
 * Reading is strict: unknown keys anywhere are refused, and a file must fit the game's
 * limits (GAME_LIMITS, its config's episode length) before any simulation starts.
 */
import { z } from 'zod';
import {
  type Action,
  ACTION_SPEC_VERSION,
  type GameConfig,
  OBS_SPEC_VERSION,
  GAME_LIMITS,
  type World,
  configLimitProblems,
  createWorld,
  episodeTicks,
  hashWorld,
  actionsEqual,
  copyAction,
  idleAction,
  outcomeSide,
  parseJsonText,
  TEAM_NAMES,
  type TeamName,
  sanitizeAction,
  step,
} from '../sim';
import { SKILL_IDS } from '../skills';
import type { DecisionTiming, PeopleOnSide, TimedDecision } from '../teams';

export const REPLAY_FORMAT = 'hillmind-replay';
/**
 * 2: the simulation's elementary functions became engine-independent (sim/detMath.ts), so
 * version 1 files, recorded with the engine's own Math.sin and friends, no longer replay.
 */
export const REPLAY_VERSION = 2;
/** Ticks between the state hashes a replay keeps (0.2 s of play: about 5 KB a match). */
export const CHECKPOINT_EVERY = 10;

export type ActionRow = [tick: number, agent: number, move: number, turn: number, strafe: number, dash: number, fire: number];

const point = z.strictObject({ x: z.number(), y: z.number() });
const rect = z.strictObject({ minX: z.number(), minY: z.number(), maxX: z.number(), maxY: z.number() });
const positive = z.number().positive();

const configSchema = z.strictObject({
  tickHz: z.number().int().positive(),
  skillEveryTicks: z.number().int().positive(),
  arena: z.strictObject({
    width: positive,
    height: positive,
    walls: z.array(rect).max(GAME_LIMITS.walls),
    spawns: z.tuple([z.array(point).max(GAME_LIMITS.agentsPerTeam), z.array(point).max(GAME_LIMITS.agentsPerTeam)]),
  }),
  agent: z.strictObject({ radius: positive, speed: positive, turnRate: positive, maxHealth: positive, perTeam: z.number().int().positive() }),
  weapon: z.strictObject({ range: positive, cooldown: positive, damage: positive, spreadStill: z.number().min(0), spreadMoving: z.number().min(0) }),
  dash: z.strictObject({ duration: positive, cooldown: positive, speedMultiplier: positive }),
  pickups: z.strictObject({ positions: z.array(point).max(GAME_LIMITS.pickups), collectRadius: positive, respawn: positive }),
  zone: z.strictObject({ radius: positive, spawnArea: rect, wallClearance: z.number().min(0) }),
  respawnDelay: positive,
  winHoldSeconds: positive,
  progressKeptOnElimination: z.number().min(0).max(1),
  episodeSeconds: positive,
  visionRange: positive,
  rayLength: positive,
}) satisfies z.ZodType<GameConfig>;

const timingSchema = z.strictObject({
  requestTick: z.number().int().min(0),
  latencyMs: z.number().min(0),
  trigger: z.string().max(200),
  cached: z.boolean().optional(),
}) satisfies z.ZodType<DecisionTiming>;

const decisionSchema = z.strictObject({
  tick: z.number().int().min(0),
  team: z.union([z.literal(0), z.literal(1)]),
  skills: z.array(z.enum(SKILL_IDS)).max(GAME_LIMITS.agentsPerTeam),
  source: z.enum(['behavior-tree', 'llm', 'planner', 'random', 'human', 'rule']),
  rationale: z.string().max(2000).optional(),
  timing: timingSchema.optional(),
});

const unit = z.number().min(-1).max(1);
const binary = z.number().int().min(0).max(1);
const teamName = z.string().max(100);

const peopleOnSideSchema = z.strictObject({
  agents: z.array(z.number().int().min(0)).min(1).max(GAME_LIMITS.agentsPerTeam).readonly(),
  teammate: teamName.optional(),
}) satisfies z.ZodType<PeopleOnSide>;

/** Which agents people played, per side where they did. */
export type PeopleInReplay = Partial<Record<TeamName, PeopleOnSide>>;

/** The longest episode any config within GAME_LIMITS plays, in ticks, and the most agents. */
const MAX_TICKS = GAME_LIMITS.tickHz * GAME_LIMITS.episodeSeconds;
const MAX_AGENTS = 2 * GAME_LIMITS.agentsPerTeam;
/** At most one row per agent and tick; at most one decision per team and tick. */
export const MAX_ACTION_ROWS = MAX_AGENTS * (MAX_TICKS + 1);
export const MAX_DECISIONS = 2 * (MAX_TICKS + 1);

const actionRowSchema = z.tuple([z.number().int().min(0), z.number().int().min(0), unit, unit, unit, binary, binary]);

const replaySchema = z.strictObject({
  format: z.literal(REPLAY_FORMAT),
  version: z.literal(REPLAY_VERSION),
  obsSpecVersion: z.number().int(),
  actionSpecVersion: z.number().int(),
  seed: z.number().int().min(0).max(0xffffffff),
  config: configSchema,
  teams: z.strictObject({ blue: teamName, red: teamName }),
  people: z.strictObject({ blue: peopleOnSideSchema.optional(), red: peopleOnSideSchema.optional() }).optional(),
  ticks: z.number().int().min(0),
  finalHash: z.string().regex(/^[0-9a-f]{16}$/),
  checkpoints: z.strictObject({
    every: z.number().int().min(1).max(MAX_TICKS),
    hashes: z.string().max(16 * MAX_TICKS).regex(/^(?:[0-9a-f]{16})*$/, 'expected 16 hex digits per checkpoint'),
  }),
  outcome: z.enum(['blue', 'red', 'draw', 'unfinished']),
  actions: z.array(actionRowSchema).max(MAX_ACTION_ROWS),
  decisions: z.array(decisionSchema).max(MAX_DECISIONS),
});

/**
 * A replay with its rows and decisions still unread: what is checked before any of them.
 * Zod reports every bad number of an array, so a 16 MiB file of out-of-range rows took
 * 33 s and 3.4 GiB to refuse; the arrays are first bounded by the file's own config, and
 * their items then read a block at a time, stopping at the first block with a problem.
 */
const replayFrameSchema = replaySchema.extend({
  actions: z.array(z.unknown()).max(MAX_ACTION_ROWS),
  decisions: z.array(z.unknown()).max(MAX_DECISIONS),
});

/** Items read per block: a bad block reports at most this many items' issues. */
const ITEM_BLOCK = 1024;

export type ReplayFile = z.infer<typeof replaySchema>;

/** Collects the action changes of a match as it runs. */
export class ReplayRecorder {
  readonly actions: ActionRow[] = [];
  readonly decisions: TimedDecision[] = [];
  private readonly checkpoints: string[] = [];
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

  /** Keep the state hash after a step that ends a checkpoint interval. */
  checkpoint(world: World): void {
    if (world.tick % CHECKPOINT_EVERY === 0) this.checkpoints.push(hashWorld(world));
  }

  /** The replay so far; `people` names the agents people played (kept only when there are any). */
  file(world: World, teams: { blue: string; red: string }, people: PeopleInReplay = {}): ReplayFile {
    return {
      format: REPLAY_FORMAT,
      version: REPLAY_VERSION,
      obsSpecVersion: OBS_SPEC_VERSION,
      actionSpecVersion: ACTION_SPEC_VERSION,
      seed: world.seed,
      config: world.config as ReplayFile['config'],
      teams,
      ...(people.blue || people.red ? { people } : {}),
      ticks: world.tick,
      finalHash: hashWorld(world),
      checkpoints: { every: CHECKPOINT_EVERY, hashes: this.checkpoints.join('') },
      outcome: outcomeSide(world.outcome) ?? 'unfinished',
      actions: this.actions,
      decisions: this.decisions.map((d) => ({ ...d, skills: [...d.skills] })),
    };
  }
}

/** Parse and validate replay JSON text; throws an Error that says what is wrong. */
export function parseReplay(text: string, source = 'replay'): ReplayFile {
  return replayFromJson(parseJsonText(text, source), source);
}

/**
 * Validate a replay already parsed from JSON (a request body's field): its config and
 * header, then its arrays' lengths against what that config allows, then their items (a
 * block at a time, stopping at the first problem), then its bounds (checkReplayBounds).
 * Throws an Error that says what is wrong.
 */
export function replayFromJson(json: unknown, source = 'replay'): ReplayFile {
  const header = z.object({ format: z.literal(REPLAY_FORMAT), version: z.unknown().optional() }).safeParse(json);
  if (!header.success) {
    throw new Error(`${source} is not a Hillmind replay: expected "format": "${REPLAY_FORMAT}"`);
  }
  if (header.data.version !== REPLAY_VERSION) {
    const found = typeof header.data.version === 'number' ? `replay version ${header.data.version}` : `a replay without a numeric "version"`;
    const why = header.data.version === 1 ? ' (version 1 was recorded before the simulation gave the same bits in every engine, and no longer replays; record the match again)' : '';
    throw new Error(`${source} is ${found}; this build reads version ${REPLAY_VERSION}${why}`);
  }
  const frame = replayFrameSchema.safeParse(json);
  if (!frame.success) throw malformed(source, frame.error.issues[0]!);
  checkArrayBounds(frame.data, source);
  const replay = { ...frame.data, actions: readBlocks(frame.data.actions, actionRowSchema, 'actions', source), decisions: readBlocks(frame.data.decisions, decisionSchema, 'decisions', source) };
  checkReplayBounds(replay, source);
  return replay;
}

function malformed(source: string, issue: z.core.$ZodIssue, path: readonly PropertyKey[] = issue.path): Error {
  return new Error(`${source} is malformed at ${path.map(String).join('.') || '(root)'}: ${issue.message}`);
}

/** Validate an array's items a block at a time, stopping at the first block with a problem. */
function readBlocks<T>(items: readonly unknown[], schema: z.ZodType<T>, field: string, source: string): T[] {
  const block = z.array(schema);
  const read: T[] = [];
  for (let start = 0; start < items.length; start += ITEM_BLOCK) {
    const parsed = block.safeParse(items.slice(start, start + ITEM_BLOCK));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw malformed(source, issue, [field, start + Number(issue.path[0]), ...issue.path.slice(1)]);
    }
    for (const item of parsed.data) read.push(item);
  }
  return read;
}

/** The lengths of a replay's arrays within what its own config allows, before any item is read. */
function checkArrayBounds(replay: { config: GameConfig; ticks: number; actions: readonly unknown[]; decisions: readonly unknown[] }, source: string): void {
  const limits = configLimitProblems(replay.config);
  if (limits.length > 0) throw new Error(`${source} asks for more than the game plays: ${limits.join('; ')}`);
  const lastTick = episodeTicks(replay.config);
  const agents = replay.config.agent.perTeam * 2;
  const maxRows = agents * (lastTick + 1);
  if (replay.actions.length > maxRows) {
    throw new Error(`${source} has ${replay.actions.length} action rows; ${agents} agents over ${lastTick + 1} ticks have at most ${maxRows} (one per agent and tick)`);
  }
  const maxDecisions = 2 * (lastTick + 1);
  if (replay.decisions.length > maxDecisions) throw new Error(`${source} has ${replay.decisions.length} decisions; a match of ${lastTick} ticks has at most ${maxDecisions}`);
}

/**
 * Throw unless a replay fits the game's limits: its config within GAME_LIMITS, its tick
 * count within its episode, action rows in tick order naming agents the world has (at
 * most one per agent and tick), decisions for teams of the world's size. Everything
 * simulating it would do is bounded by then; what it claims is verification's business.
 */
export function checkReplayBounds(replay: ReplayFile, source = 'replay'): void {
  checkArrayBounds(replay, source);
  const lastTick = episodeTicks(replay.config);
  if (replay.ticks > lastTick) {
    throw new Error(`${source} claims ${replay.ticks} ticks; its config's episode ends by tick ${lastTick} (${replay.config.episodeSeconds} s at ${replay.config.tickHz} Hz)`);
  }
  const agents = replay.config.agent.perTeam * 2;
  const previous = new Array<number>(agents).fill(-1);
  let rowTick = 0;
  replay.actions.forEach(([tick, agent], i) => {
    if (agent >= agents) throw new Error(`${source} action row ${i} names agent ${agent}; the world has ${agents}`);
    if (tick > lastTick) throw new Error(`${source} action row ${i} is at tick ${tick}, after the episode's last tick ${lastTick}`);
    if (tick < rowTick) throw new Error(`${source} action row ${i} (tick ${tick}) comes after a row of tick ${rowTick}: rows must be in tick order`);
    if (tick <= previous[agent]!) throw new Error(`${source} action row ${i} is agent ${agent}'s second row at tick ${tick}`);
    previous[agent] = tick;
    rowTick = tick;
  });
  const kept = replay.checkpoints.hashes.length / 16;
  const expected = Math.floor(replay.ticks / replay.checkpoints.every);
  if (kept !== expected) {
    throw new Error(`${source} keeps ${kept} checkpoint hashes; ${replay.ticks} ticks at one per ${replay.checkpoints.every} make ${expected}`);
  }
  const perTeam = replay.config.agent.perTeam;
  TEAM_NAMES.forEach((name, team) => {
    const agents = replay.people?.[name]?.agents ?? [];
    agents.forEach((agent, i) => {
      // Agent ids run blue's slots, then red's (sim createWorld).
      if (agent < team * perTeam || agent >= (team + 1) * perTeam) throw new Error(`${source} people.${name}.agents names agent ${agent}, which is not a ${name} agent`);
      if (agents.indexOf(agent) !== i) throw new Error(`${source} people.${name}.agents names agent ${agent} twice`);
    });
  });
  replay.decisions.forEach((d, i) => {
    if (d.skills.length !== perTeam) throw new Error(`${source} decision ${i} gives ${d.skills.length} skills; the teams have ${perTeam} agents`);
  });
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
