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
 *                                            -> 201 {token, state}
 *   GET  /api/study/<id>/session             -> {state}
 *   POST /api/study/<id>/instructions        {} (read and understood)
 *   POST /api/study/<id>/practice/skip       {}
 *   POST /api/study/<id>/attempts            {block, episode} the episode starts (a restart
 *                                            records the attempt it replaces as abandoned)
 *   POST /api/study/<id>/attempts/abandon    {block, episode, ticks, replay?} the page is left
 *                                            mid-episode (sent as it unloads)
 *   POST /api/study/<id>/episodes            {block, episode, replay, summary?}
 *   POST /api/study/<id>/ratings             {block, likert: {item: 1..points}, open: {item: text}}
 *   POST /api/study/<id>/choice              {label: "Team 2", reason}
 *   POST /api/study/<id>/background          {answers: {item: option}}
 *   GET  /api/study/<id>/clip                observe studies: the clip to watch (blinded replay)
 *   POST /api/study/<id>/judgements          {clip, episodeId, judgements: [{agent, human}]}
 *   state = {participant, step, notice?}; errors are {error} with 400 invalid, 401 no or unknown
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
import { promises as fs } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import {
  CSV_TABLES,
  type CsvTable,
  StudyError,
  StudyStore,
  abandonAttempt,
  abandonBodySchema,
  acknowledgeInstructions,
  analyzeStudy,
  type EpisodeChecker,
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
  studyDbPath,
  studyJson,
} from '../survey';
import { foreignOrigin, notJson } from './origin';
import { ModelLibrary } from '../skills';
import { modelDirFrom, nodeModelSource } from '../skills/nodeModels';
import { RateLimiter } from './rateLimit';
import { BodyTooLarge, MIME_TYPES, type Route, readBodyBytes, refuseBody, sendJson } from './server';

export const STUDY_MAX_BODY = 16 * 1024;
export const EPISODE_MAX_BODY = 8 * 1024 * 1024;
export const TOKEN_HEADER = 'x-study-token';
export const ADMIN_HEADER = 'x-admin-token';

export interface StudyRoutesOptions {
  /** Folder of the built app (its study.html is the study page). */
  readonly root: string;
  /** The store; default the database at HILLMIND_STUDY_DB (data/studies.sqlite), opened on first use. */
  readonly store?: StudyStore;
  readonly dbPath?: string;
  /** The trained models episodes are verified with; default those HILLMIND_MODELS (models/) names. */
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

/** A 413: answered once the rest of the body is read and dropped (refuseBody). */
class TooLarge extends StudyError {
  constructor(limit: number) {
    super(413, `the request is larger than ${limit} bytes`);
  }
}

/** Read a body declared JSON, unparsed (StudyError when it is not declared JSON or is too large). */
async function jsonBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  const refusal = notJson(req);
  if (refusal) throw new StudyError(refusal.status, refusal.message);
  try {
    return await readBodyBytes(req, limit);
  } catch (err) {
    if (err instanceof BodyTooLarge) throw new TooLarge(limit);
    throw err;
  }
}

/** Read, parse and validate a JSON body (StudyError on any problem). */
async function jsonBody<T extends z.ZodType>(req: IncomingMessage, schema: T, limit: number): Promise<z.infer<T>> {
  const text = (await jsonBytes(req, limit)).toString('utf8');
  let json: unknown;
  try {
    json = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new StudyError(400, 'the request is not JSON');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new StudyError(400, `invalid request at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

/** A failure of the database itself (a read-only or full disk, a lock held too long) as one 503 naming the file; anything else as it was. */
function databaseError(err: unknown, path: string): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (!(err instanceof Error) || typeof code !== 'string' || !code.startsWith('SQLITE_')) return err;
  return new StudyError(503, `the study database ${path} cannot be used: ${err.message}`);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

const emptyBody = z.strictObject({});
const sessionBody = z.strictObject({ consent: z.literal(true), external: externalSchema });
const statusBody = z.strictObject({ status: z.enum(['open', 'closed']) });
const STUDY_PATH = /^\/api\/study\/([a-z0-9][a-z0-9-]{1,47})(\/[a-z/]*)?$/;
const ADMIN_PATH = /^\/api\/admin\/study\/([a-z0-9][a-z0-9-]{1,47})(\/[a-z/]*)?$/;

export function studyRoutes(options: StudyRoutesOptions): Route[] {
  const root = resolve(options.root);
  let store = options.store ?? null;
  const db = () => (store ??= StudyStore.open(options.dbPath ?? studyDbPath()));
  let library = options.models ?? null;
  const models = () => (library ??= new ModelLibrary(nodeModelSource(modelDirFrom(process.env))));
  const limit = options.maxBodyBytes ?? STUDY_MAX_BODY;
  const episodeLimit = options.maxEpisodeBytes ?? EPISODE_MAX_BODY;
  const perMinute = options.sessionsPerMinute ?? 30;
  const sessions = new RateLimiter(perMinute / 60, perMinute, options.now);
  const episodesPerMinute = options.episodesPerMinute ?? 6;
  const episodeSends = new RateLimiter(episodesPerMinute / 60, episodesPerMinute, options.now);
  let checker = options.checker ?? null;
  const checks = () => (checker ??= inProcessChecker(models()));
  /** Participants with an episode being checked: one at a time each, so nobody holds more than one thread of the checks. */
  const checking = new Set<number>();

  const guard = (handler: (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void>) => async (req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    try {
      const refusal = foreignOrigin(req);
      if (refusal) throw new StudyError(refusal.status, refusal.message);
      await handler(req, res, path);
    } catch (caught) {
      const err = databaseError(caught, store?.path ?? options.dbPath ?? studyDbPath());
      if (!(err instanceof StudyError)) throw err;
      // A body the refusal left unread is read and dropped first, so the client hears it.
      refuseBody(req, res, err.status, { error: err.message });
    }
  };

  const participantApi = guard(async (req, res, path) => {
    const m = STUDY_PATH.exec(path);
    if (!m) throw new StudyError(404, `no study API route ${path}`);
    const studyId = m[1]!;
    const sub = m[2] ?? '';
    const method = (req.method ?? 'GET').toUpperCase();
    const store = db();
    const token = header(req, TOKEN_HEADER);
    const route = `${method} ${sub}`;
    if (route === 'GET ' || route === 'GET /') {
      const study = openStudy(store, studyId);
      sendJson(res, 200, { study: publicStudy(study.id, study.config), open: study.status === 'open' });
      return;
    }
    if (route === 'POST /session') {
      const waitMs = sessions.take(req.socket.remoteAddress ?? 'unknown');
      if (waitMs > 0) {
        throw new StudyError(429, `too many new sessions from this address; try again in ${Math.ceil(waitMs / 1000)} s`);
      }
      const body = await jsonBody(req, sessionBody, limit);
      const started = startSession(store, studyId, body, header(req, 'user-agent') ?? null);
      sendJson(res, 201, started);
      return;
    }
    const { study, participant } = authenticate(store, studyId, token);
    switch (route) {
      case 'GET /session':
        // Reads only: a participant's page still resumes on a database that cannot be written.
        sendJson(res, 200, { state: sessionState(store, study, participant, { readOnly: true }) });
        return;
      case 'POST /instructions':
        await jsonBody(req, emptyBody, limit);
        sendJson(res, 200, { state: acknowledgeInstructions(store, study, participant) });
        return;
      case 'POST /practice/skip':
        await jsonBody(req, emptyBody, limit);
        sendJson(res, 200, { state: skipPractice(store, study, participant) });
        return;
      case 'POST /attempts':
        sendJson(res, 200, { state: startAttempt(store, study, participant, await jsonBody(req, attemptBodySchema, limit)) });
        return;
      case 'POST /attempts/abandon':
        sendJson(res, 200, { state: abandonAttempt(store, study, participant, await jsonBody(req, abandonBodySchema, 64 * 1024)) });
        return;
      case 'POST /episodes': {
        if (checking.has(participant.id)) throw new StudyError(429, 'an episode of this session is being checked: wait for its answer before sending another');
        const waitMs = episodeSends.take(String(participant.id));
        if (waitMs > 0) throw new StudyError(429, `too many episodes sent by this session; try again in ${Math.ceil(waitMs / 1000)} s`);
        checking.add(participant.id);
        try {
          // A full quota refuses before the body is read.
          checkStorageLeft(store, study, participant);
          const body = await jsonBytes(req, episodeLimit);
          sendJson(res, 200, { state: await recordEpisode(store, study, participant, body, checks()) });
        } finally {
          checking.delete(participant.id);
        }
        return;
      }
      case 'POST /ratings':
        sendJson(res, 200, { state: recordRatings(store, study, participant, await jsonBody(req, ratingsBodySchema, limit)) });
        return;
      case 'POST /choice':
        sendJson(res, 200, { state: recordChoice(store, study, participant, await jsonBody(req, choiceBodySchema, limit)) });
        return;
      case 'POST /background':
        sendJson(res, 200, { state: recordBackground(store, study, participant, await jsonBody(req, backgroundBodySchema, limit)) });
        return;
      case 'GET /clip':
        sendJson(res, 200, currentClip(store, study, participant));
        return;
      case 'POST /judgements':
        sendJson(res, 200, { state: recordJudgements(store, study, participant, await jsonBody(req, judgementBodySchema, limit)) });
        return;
      default:
        throw new StudyError(404, `no study API route ${method} ${sub}`);
    }
  });

  const adminApi = guard(async (req, res, path) => {
    const m = ADMIN_PATH.exec(path);
    if (!m) throw new StudyError(404, `no admin API route ${path}`);
    const studyId = m[1]!;
    const sub = m[2] ?? '';
    const method = (req.method ?? 'GET').toUpperCase();
    const store = db();
    const study = openStudy(store, studyId);
    const adminToken = header(req, ADMIN_HEADER);
    if (!adminToken || !store.checkAdminToken(studyId, adminToken)) throw new StudyError(401, 'a valid X-Admin-Token is needed');
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = `${method} ${sub}`;
    if (route === 'GET ' || route === 'GET /') {
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
      sendJson(res, 200, {
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
      });
      return;
    }
    if (route === 'GET /analysis') {
      sendJson(res, 200, analyzeStudy(store.studyData(studyId)));
      return;
    }
    if (route === 'GET /export') {
      const format = url.searchParams.get('format') ?? 'json';
      const data = store.studyData(studyId);
      if (format === 'json') {
        const text = studyJson(store, data, { replays: url.searchParams.get('replays') === '1' });
        send(res, text, MIME_TYPES['.json']!, `${studyId}.json`);
        return;
      }
      const table = url.searchParams.get('table') ?? 'answers';
      if (format !== 'csv' || !(CSV_TABLES as readonly string[]).includes(table)) {
        throw new StudyError(400, `format is json or csv, and table one of ${CSV_TABLES.join(', ')}`);
      }
      send(res, studyCsv(data, table as CsvTable), 'text/csv; charset=utf-8', `${studyId}-${table}.csv`);
      return;
    }
    if (route === 'POST /status') {
      const body = await jsonBody(req, statusBody, limit);
      store.setStudyStatus(studyId, body.status);
      sendJson(res, 200, { status: body.status });
      return;
    }
    throw new StudyError(404, `no admin API route ${method} ${sub}`);
  });

  const page = async (req: IncomingMessage, res: ServerResponse) => {
    const file = join(root, 'study.html');
    let body: Buffer;
    try {
      body = await fs.readFile(file);
    } catch {
      res.writeHead(503, { 'Content-Type': MIME_TYPES['.txt']! });
      res.end(`the study page is not built (${file} is missing): run npm run build\n`);
      return;
    }
    res.writeHead(200, { 'Content-Type': MIME_TYPES['.html']!, 'Content-Length': body.length, 'Cache-Control': 'no-cache' });
    res.end((req.method ?? 'GET').toUpperCase() === 'HEAD' ? undefined : body);
  };

  return [
    { method: 'GET', path: '/study/*', handle: page },
    { method: 'HEAD', path: '/study/*', handle: page },
    { method: 'GET', path: '/api/study/*', handle: participantApi },
    { method: 'POST', path: '/api/study/*', handle: participantApi },
    { method: 'GET', path: '/api/admin/study/*', handle: adminApi },
    { method: 'POST', path: '/api/admin/study/*', handle: adminApi },
  ];
}

function send(res: ServerResponse, text: string, type: string, filename: string): void {
  res.writeHead(200, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'Content-Disposition': `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
  });
  res.end(text);
}
