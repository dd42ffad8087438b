/**
 * The user-study API and pages, mounted on the product's server (src/cli/serve.ts).
 *
 * Pages (the built study.html; the page reads the path):
 *   GET /study/<id>           the participant's flow
 *   GET /study/<id>/admin     the researcher's progress page (asks for the admin token)
 *
 * Participant API. Every request but the first two carries the session token in the
 * header `X-Study-Token`; a token only ever reaches its own participant's session. POST
 * bodies are JSON (Content-Type application/json), validated, and bounded (16 KiB; an
 * episode with its replay 8 MiB). Answers return the participant's new state.
 *   GET  /api/study/<id>                     the study as participants see it (no team types)
 *   POST /api/study/<id>/session             {consent: true, external?: {PROLIFIC_PID, ...}}
 *                                            -> 201 {token, state}; 409 when the PROLIFIC_PID
 *                                            already has a session in the study
 *   GET  /api/study/<id>/session             -> {state}
 *   POST /api/study/<id>/instructions        {} (read and understood)
 *   POST /api/study/<id>/practice/skip       {}
 *   POST /api/study/<id>/attempts            {block, episode, attempt?} the episode starts (a
 *                                            restart records the attempt it replaces as
 *                                            abandoned); `attempt` (starts so far + 1) makes
 *                                            a retry of the same start change nothing
 *   POST /api/study/<id>/attempts/abandon    {block, episode, ticks, replay?} the page is left
 *                                            mid-episode (sent as it unloads)
 *   POST /api/study/<id>/episodes            {block, episode, replay, summary?}
 *   POST /api/study/<id>/ratings             {block, likert: {item: 1..points}, open: {item: text}}
 *   POST /api/study/<id>/choice              {label: "Team 2", reason}
 *   POST /api/study/<id>/background          {answers: {item: option}}
 *   GET  /api/study/<id>/clip                observe studies: the clip to watch (blinded replay)
 *   POST /api/study/<id>/judgements          {clip, episodeId, judgements: [{agent, human}]}
 *   state = {participant, step, notice?}; errors are the API's one shape, {error: {kind,
 *   message}} (apiError.ts), with 400 invalid, 401 no or unknown
 *   token, 403 from another origin's page, 404 no such study, 409 not the current step,
 *   410 closed, 413 too large or past the participant's storage quota, 415 not JSON, 429 too
 *   many new sessions or episodes, or an episode sent while the last is still being checked;
 *   503 the episode checks are busy or one ran past its time limit. Every route answers 403
 *   to a Host header that is not the server's (see origin.ts).
 *
 * Researcher API (header `X-Admin-Token`, the token `npm run survey -- create` printed):
 *   GET  /api/admin/study/<id>               progress: participants, steps, counts, episodes whose
 *                                            replay did not verify (kept, with why), free text
 *   GET  /api/admin/study/<id>/analysis      the analysis (as `survey analyze` computes it)
 *   GET  /api/admin/study/<id>/export?format=json[&replays=1] | format=csv&table=answers|participants|episodes|judgements
 *   POST /api/admin/study/<id>/status        {status: "open" | "closed"}
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  DEFAULT_STUDY_DB,
  CSV_TABLES,
  type CsvTable,
  type EpisodeChecker,
  type ParticipantRecord,
  type StudyRecord,
  SERVER_BUSY_TIMEOUT_MS,
  StudyError,
  StudyStore,
  UnusableStudyDatabase,
  abandonAttempt,
  abandonBodySchema,
  acknowledgeInstructions,
  analyzeStudy,
  attemptBodySchema,
  authenticate,
  backgroundBodySchema,
  checkStorageLeft,
  choiceBodySchema,
  currentClip,
  externalSchema,
  inProcessChecker,
  judgementBodySchema,
  openStudy,
  participantBadges,
  publicStudy,
  ratingsBodySchema,
  recordBackground,
  recordChoice,
  recordEpisode,
  recordJudgements,
  recordRatings,
  sessionState,
  skipPractice,
  startAttempt,
  startSession,
  studyCsv,
  studyJson,
} from '../survey';
import { ModelLibrary } from '../skills';
import { SHIPPED_MODEL_DIR, nodeModelSource } from '../skills/nodeModels';
import { ApiError, validBody } from './apiError';
import { jsonApi } from './jsonApi';
import { useRateLimits } from './rateLimit';
import { checkStudyModels } from './studyModels';
import type { ApiRoutes } from './server';

export const STUDY_MAX_BODY = 16 * 1024;
export const EPISODE_MAX_BODY = 8 * 1024 * 1024;
/** An abandoned attempt's body: its replay so far, bounded apart from a finished episode's. */
export const ABANDON_MAX_BODY = 64 * 1024;
export const TOKEN_HEADER = 'x-study-token';
export const ADMIN_HEADER = 'x-admin-token';

export interface StudyRoutesOptions {
  /** Folder of the built app (its study.html is the study page). */
  readonly root: string;
  /** The store; default the database at dbPath, opened on first use. */
  readonly store?: StudyStore;
  /** The database's file: the server passes HILLMIND_STUDY_DB's; default data/studies.sqlite. */
  readonly dbPath?: string;
  /** The trained models episodes are verified with: the server passes its platform's; default the shipped ones (models/). */
  readonly models?: ModelLibrary;
  /** New sessions per client address per minute, and at most that many at once (default 30). */
  readonly sessionsPerMinute?: number;
  /**
   * Episodes one session may send a minute, and at most that many at once (default 6). An
   * honest page sends one per episode it played (at least a second each) and retries a
   * failed save; a refused body is not sent again and again into the checks.
   */
  readonly episodesPerMinute?: number;
  /** Clock in ms for the session and episode limits (tests); default Date.now. */
  readonly now?: () => number;
  readonly maxBodyBytes?: number;
  readonly maxEpisodeBytes?: number;
  /**
   * Reads and re-simulates episode bodies. The server passes worker threads
   * (episodeCheckPool), so no episode holds the main thread; default: on this thread, with
   * `models`.
   */
  readonly checker?: EpisodeChecker;
}

/**
 * A study's refusal as the API's error; a failure of the database itself (a read-only or
 * full disk, a file that is not a study database this build reads) as one 503 naming the
 * file, and a write lock another program holds as a 503 to retry in a second; anything
 * else as it was.
 */
function studyApiError(err: unknown, path: string): unknown {
  if (err instanceof StudyError) return new ApiError(err.status, err.message);
  if (err instanceof UnusableStudyDatabase) return new ApiError(503, `the study database cannot be used: ${err.message}`);
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_BUSY') {
    return new ApiError(503, `the study database ${path} is busy: another program is writing to it; try again in a moment`, { headers: { 'retry-after': '1' } });
  }
  if (!(err instanceof Error) || typeof code !== 'string' || !code.startsWith('SQLITE_')) return err;
  return new ApiError(503, `the study database ${path} cannot be used: ${err.message}`);
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

const emptyBody = z.strictObject({});
const sessionBody = z.strictObject({ consent: z.literal(true), external: externalSchema });
const statusBody = z.strictObject({ status: z.enum(['open', 'closed']) });

interface StudyParams {
  readonly id: string;
}
type StudyRequest = FastifyRequest<{ Params: StudyParams }>;

interface Session {
  readonly study: StudyRecord;
  readonly participant: ParticipantRecord;
}

const PARTICIPANT = '/api/study/:id';
const ADMIN = '/api/admin/study/:id';

export function studyRoutes(options: StudyRoutesOptions): ApiRoutes {
  const root = resolve(options.root);
  let store = options.store ?? null;
  // A short wait for the write lock: better-sqlite3 waits on the event loop, so every other request would wait too.
  const db = () => (store ??= StudyStore.open(options.dbPath ?? DEFAULT_STUDY_DB, { busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS }));
  let library = options.models ?? null;
  const models = () => (library ??= new ModelLibrary(nodeModelSource(SHIPPED_MODEL_DIR)));
  const limit = options.maxBodyBytes ?? STUDY_MAX_BODY;
  const episodeLimit = options.maxEpisodeBytes ?? EPISODE_MAX_BODY;
  const sessionsPerMinute = options.sessionsPerMinute ?? 30;
  const episodesPerMinute = options.episodesPerMinute ?? 6;
  let checker = options.checker ?? null;
  const checks = () => (checker ??= inProcessChecker(models()));
  /** Participants with an episode being checked: one at a time each, so nobody holds more than one thread of the checks. */
  const checking = new Set<number>();
  /** Each request's participant, once its token is checked (before its body is read). */
  const sessions = new WeakMap<FastifyRequest, Session>();
  const sessionOf = (request: FastifyRequest): Session => sessions.get(request)!;
  const signedIn = async (request: StudyRequest) => {
    sessions.set(request, authenticate(db(), request.params.id, header(request, TOKEN_HEADER)));
  };
  const researcher = async (request: StudyRequest) => {
    openStudy(db(), request.params.id);
    const adminToken = header(request, ADMIN_HEADER);
    if (!adminToken || !db().checkAdminToken(request.params.id, adminToken)) throw new StudyError(401, 'a valid X-Admin-Token is needed');
  };

  /** The participant's flow and the researcher's page: the built study.html (the page reads the path); linked from other sites, so no origin rule. */
  const page = async (_request: FastifyRequest, reply: FastifyReply) => {
    const file = join(root, 'study.html');
    if (!existsSync(file)) {
      reply.code(503).type('text/plain; charset=utf-8');
      return `the study page is not built (${file} is missing): run npm run build\n`;
    }
    return reply.sendFile('study.html', root);
  };

  const participantApi = async (api: FastifyInstance) => {
    api.get(PARTICIPANT, async (request: StudyRequest) => {
      const study = openStudy(db(), request.params.id);
      return { study: publicStudy(study.id, study.config), open: study.status === 'open' };
    });
    api.post(
      `${PARTICIPANT}/session`,
      {
        bodyLimit: limit,
        config: {
          rateLimit: {
            max: sessionsPerMinute,
            timeWindow: 60_000,
            errorResponseBuilder: (_request, context) => new ApiError(429, `too many new sessions from this address; try again in ${Math.ceil(context.ttl / 1000)} s`),
          },
        },
      },
      async (request: StudyRequest, reply) => {
        const body = validBody(sessionBody, request.body);
        reply.code(201);
        return startSession(db(), request.params.id, body, header(request, 'user-agent') ?? null);
      },
    );
    // Reads only: a participant's page still resumes on a database that cannot be written.
    api.get(`${PARTICIPANT}/session`, { onRequest: signedIn }, async (request) => {
      const { study, participant } = sessionOf(request);
      return { state: sessionState(db(), study, participant, { readOnly: true }) };
    });
    const step = <T>(path: string, bodyLimit: number, record: (session: Session, body: unknown) => T) =>
      api.post(`${PARTICIPANT}${path}`, { bodyLimit, onRequest: signedIn }, async (request) => ({ state: record(sessionOf(request), request.body) }));
    step('/instructions', limit, ({ study, participant }, body) => (validBody(emptyBody, body), acknowledgeInstructions(db(), study, participant)));
    step('/practice/skip', limit, ({ study, participant }, body) => (validBody(emptyBody, body), skipPractice(db(), study, participant)));
    step('/attempts', limit, ({ study, participant }, body) => startAttempt(db(), study, participant, validBody(attemptBodySchema, body)));
    step('/attempts/abandon', ABANDON_MAX_BODY, ({ study, participant }, body) => abandonAttempt(db(), study, participant, validBody(abandonBodySchema, body)));
    step('/ratings', limit, ({ study, participant }, body) => recordRatings(db(), study, participant, validBody(ratingsBodySchema, body)));
    step('/choice', limit, ({ study, participant }, body) => recordChoice(db(), study, participant, validBody(choiceBodySchema, body)));
    step('/background', limit, ({ study, participant }, body) => recordBackground(db(), study, participant, validBody(backgroundBodySchema, body)));
    step('/judgements', limit, ({ study, participant }, body) => recordJudgements(db(), study, participant, validBody(judgementBodySchema, body)));
    api.get(`${PARTICIPANT}/clip`, { onRequest: signedIn }, async (request) => {
      const { study, participant } = sessionOf(request);
      return currentClip(db(), study, participant);
    });
    await api.register(episodeApi);
  };

  /** Episodes: their bodies go unparsed to the checks (which read them bounded); everything that can refuse one does so before it is read. */
  const episodeApi = async (api: FastifyInstance) => {
    api.removeContentTypeParser('application/json');
    api.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    const episodeSends = api.createRateLimit({ max: episodesPerMinute, timeWindow: 60_000, keyGenerator: (request) => String(sessionOf(request).participant.id) });
    const admitted = async (request: FastifyRequest, reply: FastifyReply) => {
      const { study, participant } = sessionOf(request);
      if (checking.has(participant.id)) throw new StudyError(429, 'an episode of this session is being checked: wait for its answer before sending another');
      const sent = await episodeSends(request);
      if (!sent.isAllowed && sent.isExceeded) {
        throw new ApiError(429, `too many episodes sent by this session; try again in ${sent.ttlInSeconds} s`, { headers: { 'retry-after': String(sent.ttlInSeconds) } });
      }
      checking.add(participant.id);
      reply.raw.once('close', () => checking.delete(participant.id));
      // A full quota refuses before the body is read.
      checkStorageLeft(db(), study, participant);
    };
    api.post(`${PARTICIPANT}/episodes`, { bodyLimit: episodeLimit, onRequest: [signedIn, admitted] }, async (request) => {
      const { study, participant } = sessionOf(request);
      return { state: await recordEpisode(db(), study, participant, request.body as Buffer, checks()) };
    });
  };

  const adminApi = async (api: FastifyInstance) => {
    api.get(ADMIN, { onRequest: researcher }, async (request: StudyRequest) => progress(db(), request.params.id));
    api.get(`${ADMIN}/analysis`, { onRequest: researcher }, async (request: StudyRequest) => analyzeStudy(db().studyData(request.params.id)));
    api.get(`${ADMIN}/export`, { onRequest: researcher }, async (request: StudyRequest, reply) => {
      const studyId = request.params.id;
      const query = new URL(request.url, 'http://localhost').searchParams;
      const format = query.get('format') ?? 'json';
      const data = db().studyData(studyId);
      if (format === 'json') return attachment(reply, studyJson(db(), data, { replays: query.get('replays') === '1' }), 'application/json; charset=utf-8', `${studyId}.json`);
      const table = query.get('table') ?? 'answers';
      if (format !== 'csv' || !(CSV_TABLES as readonly string[]).includes(table)) {
        throw new StudyError(400, `format is json or csv, and table one of ${CSV_TABLES.join(', ')}`);
      }
      return attachment(reply, studyCsv(data, table as CsvTable), 'text/csv; charset=utf-8', `${studyId}-${table}.csv`);
    });
    api.post(`${ADMIN}/status`, { bodyLimit: limit, onRequest: researcher }, async (request: StudyRequest) => {
      const body = validBody(statusBody, request.body);
      db().setStudyStatus(request.params.id, body.status);
      return { status: body.status };
    });
  };

  return async (app) => {
    // A damaged or swapped model would leave every episode's AI side unchecked: the server does not start on one.
    await checkStudyModels(models());
    app.get('/study/*', page);
    await app.register(async (api) => {
      jsonApi(api, { mapError: (err) => studyApiError(err, store?.path ?? options.dbPath ?? DEFAULT_STUDY_DB) });
      await useRateLimits(api, options.now);
      await api.register(participantApi);
      await api.register(adminApi);
    });
  };
}

/** The researcher's progress page: participants, steps, counts, episodes whose replay did not verify (kept, with why), free text. */
function progress(store: StudyStore, studyId: string): unknown {
  const study = openStudy(store, studyId);
  const data = store.studyData(studyId);
  const participants = data.participants.map((p) => {
    const state = sessionState(store, study, p, { readOnly: true });
    return {
      number: p.number,
      external: p.external,
      blocks: participantBadges(p),
      step: state.step,
      episodes: data.episodes.filter((e) => e.participantId === p.id && e.block >= 0).length,
      restarts: data.attempts.filter((a) => a.participantId === p.id && a.status === 'abandoned').length,
      startedAt: p.startedAt,
      updatedAt: p.updatedAt,
      completedAt: p.completedAt,
    };
  });
  const numberOf = new Map(data.participants.map((p) => [p.id, p.number]));
  // Kept, never dropped: the researcher sees each one and why.
  const unverified = data.episodes
    .filter((e) => e.participantId !== null && !e.replayOk)
    .map((e) => ({
      participant: numberOf.get(e.participantId!),
      block: e.block,
      episode: e.episode,
      opponent: e.opponent,
      outcome: e.outcome,
      ticks: e.ticks,
      problem: e.problem,
      divergedByTick: e.divergedByTick,
      createdAt: e.createdAt,
    }));
  const freeText = data.answers
    .filter((a) => (a.kind === 'open' || a.kind === 'reason') && (a.valueText ?? '').trim() !== '')
    .map((a) => ({ participant: numberOf.get(a.participantId), team: a.team, label: a.label, item: a.item, text: a.valueText, createdAt: a.createdAt }));
  return {
    study: { id: study.id, kind: study.kind, title: study.title, status: study.status, createdAt: study.createdAt, config: study.config },
    counts: {
      participants: data.participants.length,
      completed: data.participants.filter((p) => p.completedAt).length,
      episodes: data.episodes.filter((e) => e.participantId !== null && e.block >= 0).length,
      answers: data.answers.length,
      judgements: data.judgements.length,
      restarts: data.attempts.filter((a) => a.status === 'abandoned').length,
      unverified: unverified.length,
    },
    participants,
    unverified,
    freeText,
  };
}

/** A download: `text` as a file named `filename` (never cached, as every answer of the API). */
function attachment(reply: FastifyReply, text: string, type: string, filename: string): string {
  reply.type(type).headers({ 'content-disposition': `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"` });
  return text;
}
