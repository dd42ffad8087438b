/**
 * The study protocol over the store, with no HTTP: creating studies, starting sessions,
 * and taking each answer, episode and judgement only when it is the participant's current
 * step. The API routes (src/server/studyRoutes.ts), the CLI and the tests call these.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { type ReplayFile, parseReplay, runMatch } from '../match';
import { createWorld } from '../sim';
import { mulberry32 } from '../stats';
import type { Platform } from '../teams';
import { PERSON_TEAMMATE, type StudyConfig, type StudyConfigInput, parseStudyConfig, studyGameConfig } from './config';
import { BOT_CLIP_BLOCK, PRACTICE_BLOCK, type ParticipantProgress, STUDY_BLOCK, type ParticipantState, type Step, badgeFor, currentStep } from './flow';
import type { EpisodeChecker, EpisodeExpectation } from './episodeCheck';
import { ABANDONED_REPLAY_MAX } from './limits';
import { type NewAnswer, ParticipantExists, type ParticipantRecord, type StudyRecord, type StudyStore, newToken } from './store';

/** An error with the HTTP status it maps to. */
export class StudyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** URL parameters of recruitment platforms that are kept with the participant. */
export const EXTERNAL_PARAMS = ['PROLIFIC_PID', 'STUDY_ID', 'SESSION_ID', 'workerId', 'assignmentId', 'hitId'] as const;

export const externalSchema = z
  .strictObject(Object.fromEntries(EXTERNAL_PARAMS.map((k) => [k, z.string().max(128).regex(/^[\x20-\x7e]*$/, 'printable ASCII only').optional()])))
  .default({});

// --- studies ---------------------------------------------------------------------------

export interface CreatedStudy {
  readonly study: StudyRecord;
  /** Shown once: the database keeps only its hash. */
  readonly adminToken: string;
  /** Bot-versus-bot clips made for an observe study. */
  readonly botClips: number;
}

function randomId(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/**
 * Validate and store a study. Fills in an id and a completion code when the config has
 * neither; for an observe study, plays its bot-versus-bot clips on `platform` (teams must be
 * available). `overrides.baseUrl` is stored with it: where participants reach the server.
 */
export async function createStudy(
  store: StudyStore,
  input: StudyConfigInput | StudyConfig,
  platform: Platform,
  overrides: { id?: string; teams?: readonly string[]; baseUrl?: string } = {},
): Promise<CreatedStudy> {
  const merged = { ...input, ...(overrides.id ? { id: overrides.id } : {}), ...(overrides.teams ? { teams: [...overrides.teams] } : {}) };
  const draft = parseStudyConfig(merged);
  const completion =
    draft.completion.code || draft.completion.redirectUrl ? draft.completion : { ...draft.completion, code: randomBytes(4).toString('hex').toUpperCase() };
  const config: StudyConfig = { ...draft, id: draft.id ?? randomId(draft.kind === 'observe' ? 'observe' : 'study'), completion };
  const { token, hash } = newToken();
  const study = store.createStudy(config, hash, overrides.baseUrl ?? null);
  let botClips = 0;
  if (config.kind === 'observe' && config.observe.botMatches > 0) botClips = await playBotClips(store, study, platform);
  return { study, adminToken: token, botClips };
}

/** Bot-versus-bot episodes for an observe study: every ordered pair of its bot teams in turn. */
async function playBotClips(store: StudyStore, study: StudyRecord, platform: Platform): Promise<number> {
  const config = study.config;
  const teams = config.observe.botTeams ?? config.teams;
  const pairs: [string, string][] = [];
  for (const a of teams) for (const b of teams) if (a !== b || teams.length === 1) pairs.push([a, b]);
  const gameConfig = studyGameConfig(config.episodeSeconds);
  for (let i = 0; i < config.observe.botMatches; i++) {
    const [blue, red] = pairs[i % pairs.length]!;
    const seed = (0x0b07 + i * 7919) >>> 0;
    const match = await runMatch({ blue, red, seed, config: gameConfig }, { platform });
    const replay = match.replay();
    const summary = match.summary();
    store.addEpisode({
      studyId: study.id,
      participantId: null,
      block: BOT_CLIP_BLOCK,
      episode: i,
      opponent: red,
      teammate: blue,
      seed,
      outcome: summary.winner,
      ticks: summary.ticks,
      durationSeconds: summary.durationSeconds,
      progressBlue: summary.progress.blue,
      progressRed: summary.progress.red,
      humanAgents: [],
      agentControllers: match.world.agents.map((a) => (a.team === 0 ? blue : red)),
      summary,
      replay: JSON.stringify(replay),
      replayOk: true,
    });
  }
  return config.observe.botMatches;
}

export function openStudy(store: StudyStore, id: string): StudyRecord {
  const study = store.getStudy(id);
  if (!study) throw new StudyError(404, `no study '${id}'`);
  return study;
}

// --- sessions --------------------------------------------------------------------------

export function progressOf(store: StudyStore, participant: ParticipantRecord): ParticipantProgress {
  return {
    participant,
    episodes: store.participantEpisodes(participant.id),
    answers: store.answers(participant.id),
    judgements: store.judgements(participant.id),
    attempts: store.attempts(participant.id),
  };
}

/**
 * When the latest attempt was left and its episode is now skipped (no restarts left),
 * the sentence that tells the participant why the study moved on.
 */
function skippedNotice(study: StudyRecord, progress: ParticipantProgress): string | undefined {
  const last = progress.attempts[progress.attempts.length - 1];
  if (!last || last.status !== 'abandoned' || last.block === PRACTICE_BLOCK) return undefined;
  if (progress.episodes.some((e) => e.block === last.block && e.episode === last.episode)) return undefined;
  const left = progress.attempts.filter((a) => a.block === last.block && a.episode === last.episode && a.status === 'abandoned').length;
  if (left <= study.config.restartsPerEpisode) return undefined;
  const allowed = study.config.restartsPerEpisode;
  return `Episode ${last.episode + 1} of block ${last.block + 1} was left before its end${allowed > 0 ? ` more than ${allowed === 1 ? 'once' : `${allowed} times`}` : ''}, so it is not played again. The study goes on with what comes next.`;
}

/**
 * The participant's current step; marks the session completed when it reaches the end,
 * unless `readOnly` (a GET, which must work on a database that cannot be written: the
 * request that reached the end marked it).
 */
export function sessionState(store: StudyStore, study: StudyRecord, participant: ParticipantRecord, options: { readOnly?: boolean } = {}): ParticipantState {
  const progress = progressOf(store, participant);
  const step = currentStep(study.config, study.id, progress);
  if (step.kind === 'done' && !participant.completedAt && !options.readOnly) store.markCompleted(participant.id);
  const notice = step.kind === 'done' ? undefined : skippedNotice(study, progress);
  return { participant: participant.number, step, ...(notice ? { notice } : {}) };
}

/** Observe studies: the least-judged clips, spread by a shuffle seeded by the participant number. */
function clipPlanner(store: StudyStore, study: StudyRecord): (n: number) => number[] {
  const pool = store.clipPool(study.id, study.config.observe.fromStudies, study.config.observe.includePeople);
  if (pool.length === 0) throw new StudyError(503, 'this study has no replays to show yet');
  const seen = store.judgementCounts();
  return (number) => {
    const random = mulberry32(number);
    const keyed = pool.map((e) => ({ id: e.id, seen: seen.get(e.id) ?? 0, r: random() }));
    keyed.sort((a, b) => a.seen - b.seen || a.r - b.r);
    return keyed.slice(0, study.config.observe.clips).map((k) => k.id);
  };
}

/** Start a session after consent: a new participant and its token (the page keeps it). */
export function startSession(
  store: StudyStore,
  studyId: string,
  body: { consent: true; external?: Record<string, string | undefined> },
  userAgent: string | null,
): { token: string; state: ParticipantState } {
  const study = openStudy(store, studyId);
  if (study.status !== 'open') throw new StudyError(410, 'this study is closed');
  const external = Object.fromEntries(Object.entries(body.external ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const planClips = study.config.kind === 'observe' ? clipPlanner(store, study) : undefined;
  let created: { token: string; participant: ParticipantRecord };
  try {
    created = store.createParticipant(study, external, userAgent ? userAgent.slice(0, 300) : null, planClips);
  } catch (err) {
    // The session's token lives only in the browser that started it: a second start is refused, never handed the first one's session.
    if (err instanceof ParticipantExists) {
      throw new StudyError(409, `${err.message}: continue it in the browser where it was started (the study's link resumes it there), or ask the researcher`);
    }
    throw err;
  }
  return { token: created.token, state: sessionState(store, study, created.participant) };
}

/** The participant a token belongs to in this study, or a 401. */
export function authenticate(store: StudyStore, studyId: string, token: string | undefined): { study: StudyRecord; participant: ParticipantRecord } {
  const study = openStudy(store, studyId);
  if (!token) throw new StudyError(401, 'no session token');
  const participant = store.participantByToken(studyId, token);
  if (!participant) throw new StudyError(401, 'unknown session token');
  return { study, participant };
}

function expectStep<K extends Step['kind']>(state: ParticipantState, ...kinds: K[]): Extract<Step, { kind: K }> {
  if (!(kinds as string[]).includes(state.step.kind)) {
    throw new StudyError(409, `this session is at '${state.step.kind}', not ${kinds.map((k) => `'${k}'`).join(' or ')}`);
  }
  return state.step as Extract<Step, { kind: K }>;
}

export function acknowledgeInstructions(store: StudyStore, study: StudyRecord, participant: ParticipantRecord): ParticipantState {
  store.markStep(participant.id, 'instructions');
  return sessionState(store, study, store.participant(participant.id)!);
}

export function skipPractice(store: StudyStore, study: StudyRecord, participant: ParticipantRecord): ParticipantState {
  expectStep(sessionState(store, study, participant), 'practice');
  store.markStep(participant.id, 'practice', { skipped: true });
  return sessionState(store, study, store.participant(participant.id)!);
}

// --- attempts --------------------------------------------------------------------------

export const attemptBodySchema = z.strictObject({
  block: z.number().int().min(-1).max(100),
  episode: z.number().int().min(0).max(1000),
  /**
   * Which start of the episode this is: the step's `attempt` (its starts so far) plus one,
   * as the page read it. It makes the request safe to send again: a start whose answer was
   * lost, sent again, finds its attempt under way and changes nothing. Absent: every
   * request is a new start.
   */
  attempt: z.number().int().min(1).max(1000).optional(),
});

/**
 * The participant starts the current episode (before its countdown). An earlier start of
 * the same episode that never ended was left (a reload, a closed tab): it is recorded as
 * abandoned with this restart. When that uses up the restarts the study allows, the
 * episode is skipped and the answer is the next step, with a notice saying why. A request
 * naming the attempt already under way is the same start sent again (its answer was lost):
 * answered with the state as it is.
 */
export function startAttempt(store: StudyStore, study: StudyRecord, participant: ParticipantRecord, body: z.infer<typeof attemptBodySchema>): ParticipantState {
  const step = expectStep(sessionState(store, study, participant), 'play', 'practice');
  if (step.block !== body.block || step.episode !== body.episode) {
    throw new StudyError(409, `expected block ${step.block} episode ${step.episode}, got block ${body.block} episode ${body.episode}`);
  }
  const open = store.attempts(participant.id).find((a) => a.block === step.block && a.episode === step.episode && a.status === 'playing');
  if (body.attempt !== undefined) {
    if (open && open.attempt === body.attempt) return sessionState(store, study, participant);
    if (body.attempt !== step.attempt + 1) {
      throw new StudyError(409, `this episode has been started ${step.attempt} time${step.attempt === 1 ? '' : 's'}, so its next start is attempt ${step.attempt + 1}, not ${body.attempt}`);
    }
  }
  const allowed = step.restarts.allowed;
  if (open && allowed !== null && step.restarts.used + 1 > allowed) {
    // Leaving it once more than allowed: the episode is skipped, and no new attempt starts.
    store.abandonAttempt(participant.id, step.block, step.episode, open.attempt);
    return sessionState(store, study, store.participant(participant.id)!);
  }
  store.startAttempt(participant.id, step.block, step.episode, step.seed);
  return sessionState(store, study, store.participant(participant.id)!);
}

export const abandonBodySchema = z.strictObject({
  block: z.number().int().min(-1).max(100),
  episode: z.number().int().min(0).max(1000),
  /** Which start of the episode was left (the step's `attempt` when it began). */
  attempt: z.number().int().min(1).max(1000),
  /** Ticks played when the page was left. */
  ticks: z.number().int().min(0).max(1_000_000),
  /** The unfinished match's replay up to there (optional: the page sends it only when small). */
  replay: z.unknown().optional(),
});

/**
 * The page says it is being left in the middle of an episode (sent as it unloads, so it
 * may never arrive: a restart records the abandonment anyway). The attempt becomes
 * 'abandoned' with how far it got and its replay, checked like any replay.
 */
export function abandonAttempt(store: StudyStore, study: StudyRecord, participant: ParticipantRecord, body: z.infer<typeof abandonBodySchema>): ParticipantState {
  let replay: string | undefined;
  if (body.replay !== undefined) {
    const text = JSON.stringify(body.replay);
    if (text.length > ABANDONED_REPLAY_MAX) throw new StudyError(413, `the replay of a left episode may be at most ${ABANDONED_REPLAY_MAX} characters`);
    try {
      const parsed = parseReplay(text, 'the replay');
      if (parsed.ticks !== body.ticks) throw new Error(`it has ${parsed.ticks} ticks, not ${body.ticks}`);
    } catch (err) {
      throw new StudyError(400, (err as Error).message);
    }
    replay = text;
    checkQuota(study, store.storedReplayBytes(participant.id), Buffer.byteLength(text));
  }
  store.abandonAttempt(participant.id, body.block, body.episode, body.attempt, { ticks: body.ticks, ...(replay ? { replay } : {}) });
  return sessionState(store, study, store.participant(participant.id)!);
}

// --- episodes --------------------------------------------------------------------------

/**
 * Seconds an episode's result may arrive sooner than its play allows after its attempt
 * started. Both times are the server's own; the page starts the attempt before the match's
 * countdown, so an honest result comes later than its play by the countdown and the
 * request's travel. The second covers the clock's steps and rounding.
 */
export const EPISODE_TIME_TOLERANCE_SECONDS = 1;

const MIB = 1024 * 1024;

/** A 413 unless `adding` more bytes of replays keep a participant who stored `stored` within the study's storageQuotaMiB. */
function checkQuota(study: StudyRecord, stored: number, adding: number): void {
  const quota = study.config.storageQuotaMiB * MIB;
  if (stored + adding <= quota) return;
  const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;
  throw new StudyError(
    413,
    `each participant may store at most ${study.config.storageQuotaMiB} MiB of replays in this study (its storageQuotaMiB); ${mib(stored)} are stored${adding > 0 ? ` and this replay takes ${mib(adding)}` : ''}`,
  );
}

/** A 413 when the participant's replays already fill the quota: the server asks before it reads an episode's body. */
export function checkStorageLeft(store: StudyStore, study: StudyRecord, participant: ParticipantRecord): void {
  checkQuota(study, store.storedReplayBytes(participant.id), 0);
}

/**
 * What the participant's current episode must be, from the session and the attempt the page
 * started: null when there is no such episode (another step) or it was never started, so a
 * body can only be a retry of one already stored.
 */
function expectedEpisode(store: StudyStore, study: StudyRecord, participant: ParticipantRecord, state: ParticipantState): EpisodeExpectation | null {
  const step = state.step;
  if (step.kind !== 'play' && step.kind !== 'practice') return null;
  const attempt = store.attempts(participant.id).find((a) => a.block === step.block && a.episode === step.episode && a.status === 'playing');
  if (!attempt) return null;
  const config = studyGameConfig(step.episodeSeconds);
  const age = (store.now().getTime() - Date.parse(attempt.startedAt)) / 1000;
  const shortest = Math.min(config.winHoldSeconds, config.episodeSeconds);
  if (age + EPISODE_TIME_TOLERANCE_SECONDS < shortest) {
    throw new StudyError(400, `this episode was started ${age.toFixed(1)} s ago; no episode ends in less than ${shortest} s of play, so its result cannot be in yet`);
  }
  return {
    block: step.block,
    episode: step.episode,
    seed: step.seed,
    opponent: step.opponent,
    teammate: step.teammate,
    config,
    personTeammate: study.config.teammate === PERSON_TEAMMATE,
    maxTicks: Math.floor((age + EPISODE_TIME_TOLERANCE_SECONDS) * config.tickHz),
    attemptAgeSeconds: age,
  };
}

/**
 * Store the episode the participant just played. It must be the current one (block and
 * index), started by the page (its attempt on record), no sooner than its play allows after
 * that start, with the seed, teams and game config the server planned, within the
 * participant's storage quota; a repeat of an episode already stored is answered with the
 * current state (a retried request). The body is read and re-simulated by `checker` (on a
 * worker thread in the server).
 *
 * Every result stored comes from the server's own re-simulation (outcome, ticks, zone
 * progress, per-agent counts), never from the page's word: the replay must re-simulate
 * to every claim it makes, its AI agents' actions must follow their decisions (skills from
 * the trained models), and the page's summary must agree. An episode that falls short is
 * stored all the same, flagged (replay_ok 0, its first problem and the tick by which the
 * re-simulation had parted from the file; every problem in the summary's verification),
 * and left out of every analysis: a participant's episode is never dropped for it. Its
 * outcome is the re-simulation's, 'unfinished' when the file claims an end the
 * re-simulation did not reach. A practice episode and the end of practice are one
 * transaction.
 */
export async function recordEpisode(
  store: StudyStore,
  study: StudyRecord,
  participant: ParticipantRecord,
  body: Uint8Array | string,
  checker: EpisodeChecker,
): Promise<ParticipantState> {
  const before = sessionState(store, study, participant);
  const expected = expectedEpisode(store, study, participant, before);
  const checked = await checker.check(body, expected);
  if (checked.kind === 'refused') throw new StudyError(checked.status, checked.message);
  if (checked.kind === 'other-slot') {
    if (storedEpisode(store, participant, checked)) return sessionState(store, study, store.participant(participant.id)!);
    const step = expectEpisodeStep(before, checked);
    throw new StudyError(
      409,
      `episode ${step.episode + 1} of ${step.kind === 'practice' ? 'practice' : `block ${step.block + 1}`} was not started: the page records an episode's start (POST /attempts) before it is played, and its result is taken only after that`,
    );
  }
  const at = expected!;
  store.transaction(() => {
    // Another request may have stored it, or moved the session on, while this one re-simulated.
    const now = sessionState(store, study, store.participant(participant.id)!);
    if (storedEpisode(store, participant, at)) return;
    const step = expectEpisodeStep(now, at);
    checkQuota(study, store.storedReplayBytes(participant.id), Buffer.byteLength(checked.replay));
    store.addEpisode({
      studyId: study.id,
      participantId: participant.id,
      block: step.block,
      episode: step.episode,
      opponent: step.opponent,
      teammate: step.teammate,
      seed: at.seed,
      outcome: checked.outcome,
      ticks: checked.ticks,
      durationSeconds: checked.durationSeconds,
      progressBlue: checked.progress.blue,
      progressRed: checked.progress.red,
      humanAgents: checked.humanAgents,
      agentControllers: checked.agentControllers,
      summary: checked.summary,
      replay: checked.replay,
      replayOk: checked.replayOk,
      problem: checked.problem,
      divergedByTick: checked.divergedByTick,
    });
    store.finishAttempt(participant.id, step.block, step.episode);
    if (step.kind === 'practice') store.markStep(participant.id, 'practice');
  });
  return sessionState(store, study, store.participant(participant.id)!);
}

function storedEpisode(store: StudyStore, participant: ParticipantRecord, body: { block: number; episode: number }): boolean {
  return store.participantEpisodes(participant.id).some((e) => e.block === body.block && e.episode === body.episode);
}

/** The session's episode step, when it is the one the body says. */
function expectEpisodeStep(state: ParticipantState, body: { block: number; episode: number }): Extract<Step, { kind: 'play' | 'practice' }> {
  const step = expectStep(state, 'play', 'practice');
  if (step.block !== body.block || step.episode !== body.episode) {
    throw new StudyError(409, `expected block ${step.block} episode ${step.episode}, got block ${body.block} episode ${body.episode}`);
  }
  return step;
}

// --- answers ---------------------------------------------------------------------------

export const ratingsBodySchema = z.strictObject({
  block: z.number().int().min(0).max(100),
  likert: z.record(z.string().max(32), z.number().int()),
  open: z.record(z.string().max(32), z.string().max(10_000)).default({}),
});

export function recordRatings(store: StudyStore, study: StudyRecord, participant: ParticipantRecord, body: z.infer<typeof ratingsBodySchema>): ParticipantState {
  const step = expectStep(sessionState(store, study, participant), 'rate');
  if (step.block !== body.block) throw new StudyError(409, `expected ratings of block ${step.block}, got block ${body.block}`);
  const config = study.config;
  const team = participant.plan.order[step.block]!;
  const answers: NewAnswer[] = [];
  for (const key of Object.keys(body.likert)) if (!config.likert.some((q) => q.id === key)) throw new StudyError(400, `unknown Likert item '${key}'`);
  for (const key of Object.keys(body.open)) if (!config.open.some((q) => q.id === key)) throw new StudyError(400, `unknown open question '${key}'`);
  for (const q of config.likert) {
    const v = body.likert[q.id];
    if (v === undefined) throw new StudyError(400, `missing rating '${q.id}'`);
    if (v < 1 || v > q.points) throw new StudyError(400, `rating '${q.id}' must be from 1 to ${q.points}`);
    answers.push({ block: step.block, team, label: step.badge.label, kind: 'likert', item: q.id, valueNum: v, valueText: null });
  }
  for (const q of config.open) {
    const v = body.open[q.id] ?? '';
    if (v.length > q.maxLength) throw new StudyError(400, `the answer to '${q.id}' is longer than ${q.maxLength} characters`);
    if (q.required && v.trim() === '') throw new StudyError(400, `the question '${q.id}' needs an answer`);
    answers.push({ block: step.block, team, label: step.badge.label, kind: 'open', item: q.id, valueNum: null, valueText: v });
  }
  store.addAnswers(participant.id, answers);
  return sessionState(store, study, store.participant(participant.id)!);
}

export const choiceBodySchema = z.strictObject({
  label: z.string().max(40),
  reason: z.string().max(10_000).default(''),
});

export function recordChoice(store: StudyStore, study: StudyRecord, participant: ParticipantRecord, body: z.infer<typeof choiceBodySchema>): ParticipantState {
  const step = expectStep(sessionState(store, study, participant), 'choice');
  const position = step.options.findIndex((o) => o.label === body.label);
  if (position < 0) throw new StudyError(400, `'${body.label}' is not one of ${step.options.map((o) => o.label).join(', ')}`);
  const fc = study.config.forcedChoice;
  if (body.reason.length > fc.maxLength) throw new StudyError(400, `the reason is longer than ${fc.maxLength} characters`);
  if (fc.reasonRequired && body.reason.trim() === '') throw new StudyError(400, 'please say why');
  const team = participant.plan.order[position]!;
  store.addAnswers(participant.id, [
    { block: STUDY_BLOCK, team, label: body.label, kind: 'choice', item: 'forced_choice', valueNum: position + 1, valueText: team },
    { block: STUDY_BLOCK, team, label: body.label, kind: 'reason', item: 'forced_choice_reason', valueNum: null, valueText: body.reason },
  ]);
  return sessionState(store, study, store.participant(participant.id)!);
}

export const backgroundBodySchema = z.strictObject({ answers: z.record(z.string().max(32), z.string().max(200)) });

export function recordBackground(store: StudyStore, study: StudyRecord, participant: ParticipantRecord, body: z.infer<typeof backgroundBodySchema>): ParticipantState {
  expectStep(sessionState(store, study, participant), 'background');
  const answers: NewAnswer[] = [];
  for (const key of Object.keys(body.answers)) if (!study.config.background.some((q) => q.id === key)) throw new StudyError(400, `unknown question '${key}'`);
  for (const q of study.config.background) {
    const v = body.answers[q.id];
    const index = v === undefined ? -1 : q.options.indexOf(v);
    if (index < 0) throw new StudyError(400, `the answer to '${q.id}' must be one of its options`);
    answers.push({ block: STUDY_BLOCK, team: null, label: null, kind: 'background', item: q.id, valueNum: index + 1, valueText: v! });
  }
  store.addAnswers(participant.id, answers);
  return sessionState(store, study, store.participant(participant.id)!);
}

// --- observer clips --------------------------------------------------------------------

/** The replay an observer watches: teams and strategist decisions removed (they would tell). */
export function blindedReplay(text: string): ReplayFile {
  const replay = parseReplay(text, 'the stored replay');
  return { ...replay, teams: { blue: 'Blue team', red: 'Red team' }, decisions: [] };
}

export interface ClipAgent {
  readonly agent: number;
  readonly team: 0 | 1;
  readonly slot: number;
  /** "Blue 1", "Red 2": how the page names it (B1, R2 over the agent). */
  readonly name: string;
}

export function currentClip(
  store: StudyStore,
  study: StudyRecord,
  participant: ParticipantRecord,
): { clip: number; clips: number; episodeId: number; agents: ClipAgent[]; replay: ReplayFile } {
  const step = expectStep(sessionState(store, study, participant, { readOnly: true }), 'clip');
  const text = store.replayText(step.episodeId);
  if (!text) throw new StudyError(500, 'the clip is missing');
  const replay = blindedReplay(text);
  const agents = createWorld(replay.seed, replay.config).agents.map((a) => ({ agent: a.id, team: a.team, slot: a.slot, name: `${a.team === 0 ? 'Blue' : 'Red'} ${a.slot + 1}` }));
  return { clip: step.clip, clips: step.clips, episodeId: step.episodeId, agents, replay };
}

export const judgementBodySchema = z.strictObject({
  clip: z.number().int().min(0).max(100),
  episodeId: z.number().int().min(1),
  judgements: z.array(z.strictObject({ agent: z.number().int().min(0).max(16), human: z.boolean() })).min(1).max(16),
});

export function recordJudgements(store: StudyStore, study: StudyRecord, participant: ParticipantRecord, body: z.infer<typeof judgementBodySchema>): ParticipantState {
  const step = expectStep(sessionState(store, study, participant), 'clip');
  if (step.clip !== body.clip || step.episodeId !== body.episodeId) throw new StudyError(409, `expected clip ${step.clip}`);
  const episode = store.episode(step.episodeId);
  if (!episode) throw new StudyError(500, 'the clip is missing');
  const agents = episode.agentControllers.length;
  const seen = new Set(body.judgements.map((j) => j.agent));
  if (seen.size !== body.judgements.length || body.judgements.length !== agents || [...seen].some((a) => a >= agents)) {
    throw new StudyError(400, `judge each of the ${agents} agents once`);
  }
  store.addJudgements(
    participant.id,
    episode.id,
    step.clip,
    body.judgements.map((j) => ({ agent: j.agent, truth: episode.agentControllers[j.agent]!, judgedHuman: j.human })),
  );
  return sessionState(store, study, store.participant(participant.id)!);
}

/** Team badges of a participant's blocks, for the admin view. */
export function participantBadges(participant: ParticipantRecord): { team: string; label: string; colour: string }[] {
  return participant.plan.order.map((team, i) => ({ team, ...badgeFor(i) }));
}

