/**
 * The study API over HTTP (the product's server with the study routes mounted): the
 * participant's protocol step by step with real replays, token isolation, validation and
 * size bounds, the researcher's API, and observer mode.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplayFile, parseReplay, verifyReplay } from '../../src/match';
import { type RunningServer, createAppServer, healthRoute, listen } from '../../src/server/server';
import { studyRoutes } from '../../src/server/studyRoutes';
import { DEFAULT_CONFIG } from '../../src/sim';
import { type Step, type StudyConfigInput, StudyStore, analyzeStudy, createStudy } from '../../src/survey';
import { humanEpisode, manualClock, quickStudy } from './fixture';
import { TEST_PLATFORM } from '../helpers/platform';

let dir: string;
let store: StudyStore;
let running: RunningServer;
let adminToken: string;
const clock = manualClock();
const STUDY = 'api-study';
const CONFIG: StudyConfigInput = { ...quickStudy(STUDY), completion: { code: 'API-CODE' } };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hillmind-study-api-'));
  const root = join(dir, 'dist');
  mkdirSync(root);
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>app</title>');
  writeFileSync(join(root, 'study.html'), '<!doctype html><title>study page</title>');
  store = StudyStore.open(join(dir, 'studies.sqlite'), { now: clock.now });
  ({ adminToken } = await createStudy(store, CONFIG, TEST_PLATFORM));
  await createStudy(store, { ...CONFIG, id: 'other-study' }, TEST_PLATFORM);
  running = await listen(createAppServer({ root, routes: [healthRoute(), studyRoutes({ root, store, sessionsPerMinute: 1000, episodesPerMinute: 1000 })] }), 0);
});

afterAll(async () => {
  await running?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const base = () => `http://127.0.0.1:${running.port}`;

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(`${base()}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { text };
  }
  return { status: res.status, body: json };
}

const as = (token: string) => ({ 'x-study-token': token });
const stepOf = (r: Reply) => (r.body.state as { step: Step }).step;

async function join_(study = STUDY, external: Record<string, string> = {}): Promise<{ token: string; step: Step; participant: number }> {
  const r = await api('POST', `/api/study/${study}/session`, { consent: true, external });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const state = r.body.state as { step: Step; participant: number };
  return { token: r.body.token as string, step: state.step, participant: state.participant };
}

/** Start the step's episode as the page does, play it (a real replay, the person idle) for as long as it lasts, and send it. */
async function sendEpisode(token: string, step: Step, tamper?: (r: ReplayFile) => ReplayFile): Promise<Reply> {
  if (step.kind !== 'play' && step.kind !== 'practice') throw new Error(`not an episode step: ${step.kind}`);
  await api('POST', `/api/study/${STUDY}/attempts`, { block: step.block, episode: step.episode }, as(token));
  const { replay, summary } = await humanEpisode(step.opponent, step.seed, { ...DEFAULT_CONFIG, episodeSeconds: step.episodeSeconds ?? 60 });
  clock.advance(replay.ticks / DEFAULT_CONFIG.tickHz + 3);
  return api('POST', `/api/study/${STUDY}/episodes`, { block: step.block, episode: step.episode, replay: tamper ? tamper(replay) : replay, summary }, as(token));
}

const LIKERT = { challenge: 4, skill: 3, coordination: 2, enjoyment: 5, humanlike: 3 };

describe('the study API', () => {
  it('serves the study page and the study as participants see it, without team types or code', async () => {
    const page = await fetch(`${base()}/study/${STUDY}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('study page');
    expect(page.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect((await fetch(`${base()}/study/${STUDY}/admin`, { method: 'HEAD' })).status).toBe(200);
    const info = await api('GET', `/api/study/${STUDY}`);
    expect(info.status).toBe(200);
    expect(info.body.study).toMatchObject({ id: STUDY, kind: 'play', blocks: 3, episodesPerBlock: 1, teammate: 'ai' });
    const text = JSON.stringify(info.body);
    for (const secret of ['"bt-scripted"', '"heuristic"', '"random"', 'API-CODE']) expect(text).not.toContain(secret);
    expect((await api('GET', '/api/study/no-such-study')).status).toBe(404);
    expect((await api('GET', '/api/study/BAD_ID')).status).toBe(404);
  });

  it('starts a session only with consent, keeping the platform ids', async () => {
    expect((await api('POST', `/api/study/${STUDY}/session`, { consent: false })).status).toBe(400);
    expect((await api('POST', `/api/study/${STUDY}/session`, { consent: true, external: { evil: 'x' } })).status).toBe(400);
    const { token, step, participant } = await join_(STUDY, { PROLIFIC_PID: '5f0c9a', workerId: 'W1' });
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(step.kind).toBe('instructions');
    const row = store.participants(STUDY).find((p) => p.number === participant)!;
    expect(row.external).toEqual({ PROLIFIC_PID: '5f0c9a', workerId: 'W1' });
    // Only the token's hash is stored.
    expect(JSON.stringify(store.db.prepare('SELECT * FROM participants').all())).not.toContain(token);
  });

  it('validates every request: content type, JSON, shape and size', async () => {
    const { token } = await join_();
    expect((await api('POST', `/api/study/${STUDY}/instructions`, 'x', { ...as(token), 'content-type': 'text/plain' })).status).toBe(415);
    expect((await api('POST', `/api/study/${STUDY}/instructions`, '{nope', as(token))).status).toBe(400);
    expect((await api('POST', `/api/study/${STUDY}/instructions`, { extra: 1 }, as(token))).status).toBe(400);
    const huge = await api('POST', `/api/study/${STUDY}/ratings`, { block: 0, likert: LIKERT, open: { behaviours: 'x'.repeat(40_000) } }, as(token));
    expect(huge.status).toBe(413);
    expect((await api('GET', `/api/study/${STUDY}/nothing`, undefined, as(token))).status).toBe(404);
  });

  it('gives one Prolific participant one session: a second start is refused, in this study only', async () => {
    await join_(STUDY, { PROLIFIC_PID: 'once-only' });
    const again = await api('POST', `/api/study/${STUDY}/session`, { consent: true, external: { PROLIFIC_PID: 'once-only' } });
    expect(again.status).toBe(409);
    expect((again.body.error as { message: string }).message).toMatch(/Prolific participant once-only already has a session in this study: continue it in the browser where it was started/);
    expect(store.participants(STUDY).filter((p) => p.external.PROLIFIC_PID === 'once-only')).toHaveLength(1);
    await join_('other-study', { PROLIFIC_PID: 'once-only' });
  });

  it('keeps participants apart: a token reaches only its own session, in its own study', async () => {
    const a = await join_();
    const b = await join_();
    expect(b.participant).not.toBe(a.participant);
    expect((await api('GET', `/api/study/${STUDY}/session`)).status).toBe(401);
    expect((await api('GET', `/api/study/${STUDY}/session`, undefined, as('forged-token'))).status).toBe(401);
    expect((await api('GET', `/api/study/other-study/session`, undefined, as(a.token))).status).toBe(401);
    const moved = await api('POST', `/api/study/${STUDY}/instructions`, {}, as(a.token));
    expect(stepOf(moved).kind).toBe('practice');
    const aState = await api('GET', `/api/study/${STUDY}/session`, undefined, as(a.token));
    const bState = await api('GET', `/api/study/${STUDY}/session`, undefined, as(b.token));
    expect((aState.body.state as { participant: number }).participant).toBe(a.participant);
    expect((bState.body.state as { participant: number }).participant).toBe(b.participant);
    expect(stepOf(bState).kind).toBe('instructions');
  });

  it('takes a whole study, step by step, refusing what is out of turn', async () => {
    const { token } = await join_(STUDY, { PROLIFIC_PID: 'full-run' });
    // Nothing but the current step is accepted.
    expect((await api('POST', `/api/study/${STUDY}/ratings`, { block: 0, likert: LIKERT }, as(token))).status).toBe(409);
    let step = stepOf(await api('POST', `/api/study/${STUDY}/instructions`, {}, as(token)));
    expect(step).toMatchObject({ kind: 'practice', opponent: 'heuristic', episodeSeconds: 1, badge: { label: 'Practice team' } });

    // An episode of other teams, another seed or another game config is refused.
    expect((await sendEpisode(token, { ...step, seed: step.kind === 'practice' ? step.seed + 1 : 0 } as Step)).status).toBe(400);
    expect((await sendEpisode(token, { ...step, opponent: 'random' } as Step)).status).toBe(400);
    expect((await sendEpisode(token, { ...step, episodeSeconds: 2 } as Step)).status).toBe(400);
    const practice = await sendEpisode(token, step);
    expect(practice.status).toBe(200);
    // A retried request is answered with the current state, not stored twice.
    expect((await sendEpisode(token, step)).status).toBe(200);
    step = stepOf(practice);

    const order: string[] = [];
    for (let block = 0; block < 3; block++) {
      expect(step).toMatchObject({ kind: 'play', block, episode: 0, episodes: 1, badge: { label: `Team ${block + 1}` } });
      if (step.kind !== 'play') throw new Error('expected play');
      order.push(step.opponent);
      const played = await sendEpisode(token, step);
      expect(played.status).toBe(200);
      step = stepOf(played);
      expect(step).toMatchObject({ kind: 'rate', block });
      expect((await api('POST', `/api/study/${STUDY}/ratings`, { block, likert: { ...LIKERT, humanlike: 9 } }, as(token))).status).toBe(400);
      expect((await api('POST', `/api/study/${STUDY}/ratings`, { block, likert: { challenge: 3 } }, as(token))).status).toBe(400);
      expect((await api('POST', `/api/study/${STUDY}/ratings`, { block: block + 1, likert: LIKERT }, as(token))).status).toBe(409);
      const rated = await api('POST', `/api/study/${STUDY}/ratings`, { block, likert: { ...LIKERT, humanlike: block + 1 }, open: { behaviours: `block ${block} <i>text</i>` } }, as(token));
      expect(rated.status).toBe(200);
      step = stepOf(rated);
    }
    expect([...order].sort()).toEqual(['bt-scripted', 'heuristic', 'random']);

    expect(step).toMatchObject({ kind: 'choice', options: [{ label: 'Team 1' }, { label: 'Team 2' }, { label: 'Team 3' }] });
    expect((await api('POST', `/api/study/${STUDY}/choice`, { label: 'Team 9', reason: 'x' }, as(token))).status).toBe(400);
    expect((await api('POST', `/api/study/${STUDY}/choice`, { label: 'Team 3', reason: '   ' }, as(token))).status).toBe(400);
    step = stepOf(await api('POST', `/api/study/${STUDY}/choice`, { label: 'Team 3', reason: 'It  peeked\n& adapted' }, as(token)));
    expect(step.kind).toBe('background');
    expect((await api('POST', `/api/study/${STUDY}/background`, { answers: { gaming: 'Sometimes', team_games: 'None' } }, as(token))).status).toBe(400);
    const finished = await api('POST', `/api/study/${STUDY}/background`, { answers: { gaming: 'Every day', team_games: 'Some' } }, as(token));
    expect(stepOf(finished)).toEqual({ kind: 'done', code: 'API-CODE', redirectUrl: null, message: 'Thank you for taking part.' });
    expect(stepOf(await api('GET', `/api/study/${STUDY}/session`, undefined, as(token))).kind).toBe('done');

    const participant = store.participants(STUDY).find((p) => p.external.PROLIFIC_PID === 'full-run')!;
    expect(participant.completedAt).not.toBeNull();
    expect(participant.plan.order).toEqual(order);
    const episodes = store.participantEpisodes(participant.id);
    expect(episodes.map((e) => [e.block, e.opponent, e.replayOk])).toEqual([[-1, 'heuristic', true], ...order.map((t, i) => [i, t, true])]);
    expect(episodes[1]!.agentControllers).toEqual(['human', 'bt-scripted', order[0], order[0]]);
    expect(verifyReplay(parseReplay(store.replayText(episodes[1]!.id)!)).ok).toBe(true);
    const answers = store.answers(participant.id);
    expect(answers.find((a) => a.kind === 'reason')!.valueText).toBe('It  peeked\n& adapted');
    expect(answers.find((a) => a.kind === 'choice')).toMatchObject({ team: order[2], label: 'Team 3' });
    expect(answers.filter((a) => a.item === 'humanlike').map((a) => [a.team, a.valueNum])).toEqual(order.map((t, i) => [t, i + 1]));
  });

  it('flags a replay that does not re-simulate to its final hash', async () => {
    const { token } = await join_();
    const step = stepOf(await api('POST', `/api/study/${STUDY}/instructions`, {}, as(token)));
    const r = await sendEpisode(token, step, (replay) => ({ ...replay, actions: replay.actions.map((a) => (a[1] === 2 ? ([a[0], a[1], 0, 0, 0, 0, 0] as typeof a) : a)) }));
    expect(r.status).toBe(200);
    const participant = store.participants(STUDY).at(-1)!;
    expect(store.participantEpisodes(participant.id)[0]!.replayOk).toBe(false);
    expect(analyzeStudy(store.studyData(STUDY)).notes.join(' ')).toMatch(/did not re-simulate/);
  });

  it('lets a participant skip the practice round', async () => {
    const { token } = await join_();
    expect((await api('POST', `/api/study/${STUDY}/practice/skip`, {}, as(token))).status).toBe(409);
    await api('POST', `/api/study/${STUDY}/instructions`, {}, as(token));
    const skipped = await api('POST', `/api/study/${STUDY}/practice/skip`, {}, as(token));
    expect(stepOf(skipped)).toMatchObject({ kind: 'play', block: 0 });
  });
});

describe("the researcher's API", () => {
  it('needs the admin token', async () => {
    expect((await api('GET', `/api/admin/study/${STUDY}`)).status).toBe(401);
    expect((await api('GET', `/api/admin/study/${STUDY}`, undefined, { 'x-admin-token': 'wrong' })).status).toBe(401);
    // Another study's token does not open this one.
    const other = await createStudy(store, { ...CONFIG, id: 'third-study' }, TEST_PLATFORM);
    expect((await api('GET', `/api/admin/study/${STUDY}`, undefined, { 'x-admin-token': other.adminToken })).status).toBe(401);
  });

  it('shows progress, analysis and exports', async () => {
    const admin = { 'x-admin-token': adminToken };
    const progress = await api('GET', `/api/admin/study/${STUDY}`, undefined, admin);
    expect(progress.status).toBe(200);
    const counts = progress.body.counts as Record<string, number>;
    expect(counts.completed).toBe(1);
    expect(counts.participants).toBeGreaterThanOrEqual(5);
    expect((progress.body.freeText as { text: string }[]).some((f) => f.text === 'block 0 <i>text</i>')).toBe(true);
    const analysis = await api('GET', `/api/admin/study/${STUDY}/analysis`, undefined, admin);
    expect((analysis.body.forcedChoice as { n: number }).n).toBe(1);
    const csv = await fetch(`${base()}/api/admin/study/${STUDY}/export?format=csv&table=episodes`, { headers: admin });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toContain(`${STUDY}-episodes.csv`);
    expect((await csv.text()).split('\r\n')[0]).toMatch(/^study,episode_id,participant,block/);
    const json = await fetch(`${base()}/api/admin/study/${STUDY}/export?format=json&replays=1`, { headers: admin });
    const doc = (await json.json()) as { episodes: { replay: { format: string } }[] };
    expect(doc.episodes[0]!.replay.format).toBe('hillmind-replay');
    expect((await api('GET', `/api/admin/study/${STUDY}/export?format=xml`, undefined, admin)).status).toBe(400);
  });

  it('closes a study to new participants; those in progress go on', async () => {
    const admin = { 'x-admin-token': adminToken };
    const { token } = await join_();
    expect((await api('POST', `/api/admin/study/${STUDY}/status`, { status: 'closed' }, admin)).status).toBe(200);
    expect((await api('POST', `/api/study/${STUDY}/session`, { consent: true })).status).toBe(410);
    expect((await api('GET', `/api/study/${STUDY}`)).body.open).toBe(false);
    expect((await api('POST', `/api/study/${STUDY}/instructions`, {}, as(token))).status).toBe(200);
    await api('POST', `/api/admin/study/${STUDY}/status`, { status: 'open' }, admin);
  });

  it('limits how fast one address opens sessions', async () => {
    let now = 0;
    const limited = await listen(createAppServer({ root: dir, routes: [studyRoutes({ root: dir, store, sessionsPerMinute: 2, now: () => now })] }), 0);
    try {
      const open = () => fetch(`http://127.0.0.1:${limited.port}/api/study/${STUDY}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"consent":true}' });
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await open()).status);
      expect(statuses).toEqual([201, 201, 429]);
      // 2 a minute: one more every 30 s.
      now += 29_000;
      const early = await open();
      expect(early.status).toBe(429);
      expect(((await early.json()) as { error: { message: string } }).error.message).toMatch(/try again in 1 s/);
      now += 1_000;
      expect((await open()).status).toBe(201);
    } finally {
      await limited.close();
    }
  });
});

describe('observer mode', () => {
  it('observers judge blinded replays of people and bots; humanness per type', async () => {
    const { study } = await createStudy(store, {
      id: 'observe-study',
      kind: 'observe',
      teams: ['bt-scripted', 'heuristic'],
      episodeSeconds: 1,
      observe: { fromStudies: [STUDY], clips: 4, botMatches: 2 },
    }, TEST_PLATFORM);
    expect(store.studyData(study.id).episodes).toHaveLength(2);
    const truths: Record<string, { human: number; n: number }> = {};
    for (let observer = 0; observer < 2; observer++) {
      const { token, step } = await join_(study.id);
      expect(step.kind).toBe('instructions');
      let current = stepOf(await api('POST', `/api/study/${study.id}/instructions`, {}, as(token)));
      let clips = 0;
      while (current.kind === 'clip') {
        const clip = await api('GET', `/api/study/${study.id}/clip`, undefined, as(token));
        expect(clip.status).toBe(200);
        const replay = parseReplay(JSON.stringify(clip.body.replay));
        // Nothing in the replay says who played.
        expect(replay.teams).toEqual({ blue: 'Blue team', red: 'Red team' });
        expect(replay.decisions).toEqual([]);
        // It re-simulates exactly; blinded, it no longer says who played (so does not fully verify).
        expect(verifyReplay(replay).resimulates).toBe(true);
        const agents = clip.body.agents as { agent: number; name: string }[];
        expect(agents.map((a) => a.name)).toEqual(['Blue 1', 'Blue 2', 'Red 1', 'Red 2']);
        expect((await api('POST', `/api/study/${study.id}/judgements`, { clip: current.clip, episodeId: current.episodeId, judgements: [{ agent: 0, human: true }] }, as(token))).status).toBe(400);
        // This observer calls the blue agents people and the red ones bots.
        const judged = await api(
          'POST',
          `/api/study/${study.id}/judgements`,
          { clip: current.clip, episodeId: current.episodeId, judgements: agents.map((a) => ({ agent: a.agent, human: a.agent < 2 })) },
          as(token),
        );
        expect(judged.status).toBe(200);
        const episode = store.episode(current.episodeId)!;
        episode.agentControllers.forEach((truth, agent) => {
          truths[truth] ??= { human: 0, n: 0 };
          truths[truth].n++;
          if (agent < 2) truths[truth].human++;
        });
        current = stepOf(judged);
        clips++;
      }
      expect(clips).toBe(4);
      expect(current.kind).toBe('background');
    }
    const analysis = analyzeStudy(store.studyData(study.id));
    expect(analysis.observer!.participants).toBe(2);
    expect(analysis.observer!.judgements).toBe(2 * 4 * 4);
    expect(analysis.observer!.types[0]!.type).toBe('human');
    for (const t of analysis.observer!.types) {
      expect(t.judgements).toBe(truths[t.type]!.n);
      expect(t.judgedHuman).toBe(truths[t.type]!.human);
      expect(t.rate!.lower).toBeLessThanOrEqual(t.rate!.estimate);
    }
    // People only ever played blue slot 0 here, which this observer always called human.
    expect(analysis.observer!.types[0]!.rate!.estimate).toBe(1);
  });
});
