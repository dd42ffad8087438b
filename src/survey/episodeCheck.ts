/**
 * The heavy part of taking a participant's episode, with no store and no HTTP, so it can
 * run on any thread (the server runs it on a worker: src/server/episodeChecks.ts): read the
 * request body (JSON, its shape, the replay bounded before it is read in detail), check it
 * is the planned episode, and re-simulate it. The answer is plain data (it crosses threads):
 * what to store, or why the body is refused.
 *
 * An episode whose replay does not verify is never refused for that: it is stored with the
 * re-simulation's results, flagged with the first problem and the tick by which the
 * re-simulation had parted from the file (see EpisodeVerdict).
 */
import { z } from 'zod';
import { type MatchSummary, type ReplayFile, type SideCheck, claimedSummarySchema, replayFromJson, summaryProblems, verifyReplayWithModels } from '../match';
import { type GameConfig, createWorld, episodeTicks, teamAgents } from '../sim';
import type { ModelLibrary } from '../skills';

export const episodeBodySchema = z.strictObject({
  block: z.number().int().min(-1).max(100),
  episode: z.number().int().min(0).max(1000),
  /** The match's replay file (an object, as the page's Match.replay() returns it). */
  replay: z.unknown(),
  /** The page's match summary: cross-checked against the server's re-simulation, never stored. */
  summary: claimedSummarySchema.optional(),
});
export type EpisodeBody = z.infer<typeof episodeBodySchema>;

/** What the server planned for the episode the participant is at (from the session's step). */
export interface EpisodeExpectation {
  readonly block: number;
  readonly episode: number;
  readonly seed: number;
  readonly opponent: string;
  readonly teammate: string;
  /** The study's game config for this episode. */
  readonly config: GameConfig;
  /** A second person plays the participant's teammate. */
  readonly personTeammate: boolean;
  /** The most ticks the episode can have played since its attempt started (its age at the tick rate, with the tolerance). */
  readonly maxTicks: number;
  /** Seconds since the attempt started, for the refusal's words. */
  readonly attemptAgeSeconds: number;
}

/** An episode to store: every result from the server's re-simulation. */
export interface EpisodeVerdict {
  readonly kind: 'store';
  /** The re-simulation's outcome: 'unfinished' when the file claims an end the re-simulation did not reach. */
  readonly outcome: 'blue' | 'red' | 'draw' | 'unfinished';
  readonly ticks: number;
  readonly durationSeconds: number;
  readonly progress: { readonly blue: number; readonly red: number };
  readonly humanAgents: readonly number[];
  readonly agentControllers: readonly string[];
  /** The re-simulation's summary with its verification ({ok, problems, sides, divergedByTick}). */
  readonly summary: MatchSummary & { readonly verification: Verification };
  /** The validated replay as JSON text (what is stored, so what counts against the quota). */
  readonly replay: string;
  readonly replayOk: boolean;
  /** The first problem, when the replay did not verify. */
  readonly problem: string | null;
  /**
   * When the re-simulation parted from the recorded match: the first tick at which a state
   * hash the file keeps (a checkpoint, or the final one) differs, so the first diverging
   * tick is at or before it (the problem says since which checkpoint they agreed); null when
   * every state agreed.
   */
  readonly divergedByTick: number | null;
}

export interface Verification {
  readonly ok: boolean;
  readonly problems: readonly string[];
  readonly sides: { readonly blue: SideCheck; readonly red: SideCheck };
  readonly divergedByTick: number | null;
}

/** A body that is not the planned episode, or not an episode at all. */
export interface EpisodeRefusal {
  readonly kind: 'refused';
  readonly status: number;
  readonly message: string;
}

/** The body names another slot than the planned one (a retry of a stored episode, or a stale page). */
export interface OtherSlot {
  readonly kind: 'other-slot';
  readonly block: number;
  readonly episode: number;
}

export type EpisodeCheck = EpisodeVerdict | EpisodeRefusal | OtherSlot;

const refused = (status: number, message: string): EpisodeRefusal => ({ kind: 'refused', status, message });

/** Order-insensitive deep equality of plain JSON values. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => sameJson(v, (b as unknown[])[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * Read and check an episode request body (UTF-8 JSON) against what the server expects;
 * re-simulate it when it is the planned episode. With no expectation (the session is at
 * no episode it started), only which slot the body names is answered: it may retry one
 * already stored.
 */
export async function checkEpisode(body: Uint8Array | string, expected: EpisodeExpectation | null, models: ModelLibrary): Promise<EpisodeCheck> {
  let json: unknown;
  try {
    const text = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
    json = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return refused(400, 'the request is not JSON');
  }
  const parsed = episodeBodySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return refused(400, `invalid request at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const request = parsed.data;
  if (!expected || request.block !== expected.block || request.episode !== expected.episode) return { kind: 'other-slot', block: request.block, episode: request.episode };
  let replay: ReplayFile;
  try {
    replay = replayFromJson(request.replay, 'the replay');
  } catch (err) {
    return refused(400, (err as Error).message);
  }
  if (replay.seed !== expected.seed) return refused(400, `the replay's seed ${replay.seed} is not the planned ${expected.seed}`);
  if (replay.teams.blue !== 'human' || replay.teams.red !== expected.opponent) return refused(400, 'the replay is not of the planned teams');
  if (!sameJson(replay.config, expected.config)) return refused(400, "the replay's game config is not the study's");
  if (replay.ticks > expected.maxTicks) {
    const seconds = replay.ticks / replay.config.tickHz;
    return refused(
      400,
      `the replay covers ${seconds.toFixed(1)} s of play, but this episode was started ${expected.attemptAgeSeconds.toFixed(1)} s ago: an episode's result arrives no sooner than its play allows`,
    );
  }
  // The page's own word that the match did not end (or a draw before the time ran out) is no episode: refused, as the page was left.
  if (replay.outcome === 'unfinished' || (replay.outcome === 'draw' && replay.ticks < episodeTicks(replay.config))) {
    return refused(400, `the episode is not finished: its replay stops at tick ${replay.ticks}, before the episode's end at tick ${episodeTicks(replay.config)}, and no side won`);
  }
  const world = createWorld(replay.seed, replay.config);
  const blue = teamAgents(world, 0).map((a) => a.id);
  const humanAgents = expected.personTeammate ? blue : [blue[0]!];
  const agentControllers = world.agents.map((a) => (humanAgents.includes(a.id) ? 'human' : a.team === 0 ? expected.teammate : expected.opponent));
  const check = await verifyReplayWithModels(replay, { models, people: { blue: { agents: humanAgents, ...(expected.personTeammate ? {} : { teammate: expected.teammate }) } } });
  // Every AI agent's actions must have been derived again: a side whose models could not load here (or that no team plays) is not verified.
  const aiSides: readonly (readonly ['blue' | 'red', string])[] = [['red', expected.opponent], ...(expected.personTeammate ? [] : [['blue', expected.teammate] as const])];
  const unchecked = aiSides.filter(([side]) => !check.sides[side].checked).map(([side, team]) => `the AI side ${side} ('${team}') is not verified: ${check.sides[side].how}`);
  const problems = [...check.problems, ...unchecked, ...(request.summary ? summaryProblems(request.summary, check.summary) : [])];
  // The first checkpoint that differs, else (the states agreed wherever the file kept one) the end, where the outcome differed.
  const divergedByTick = check.divergence?.differsBy ?? (check.resimulates && check.outcome === replay.outcome ? null : check.ticks);
  return {
    kind: 'store',
    outcome: check.outcome,
    ticks: check.ticks,
    durationSeconds: check.summary.durationSeconds,
    progress: check.progress,
    humanAgents,
    agentControllers,
    summary: { ...check.summary, verification: { ok: problems.length === 0, problems, sides: check.sides, divergedByTick } },
    replay: JSON.stringify(replay),
    replayOk: problems.length === 0,
    problem: problems[0] ?? null,
    divergedByTick,
  };
}

/** Checks episode bodies: on this thread (tests, tools) or on worker threads (the server). */
export interface EpisodeChecker {
  check(body: Uint8Array | string, expected: EpisodeExpectation | null): Promise<EpisodeCheck>;
  close(): Promise<void>;
}

/** An EpisodeChecker on the calling thread, with the given trained models. */
export function inProcessChecker(models: ModelLibrary): EpisodeChecker {
  return { check: (body, expected) => checkEpisode(body, expected, models), close: async () => undefined };
}
