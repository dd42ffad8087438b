/**
 * The study server keeps only what it re-derives: every stored result comes from its own
 * re-simulation of the replay; what the page says is at most cross-checked. Probes of an
 * attacker and of a careless page: forged outcomes and summaries, replays that do not
 * re-simulate, impossible rows, deep nesting, a crash in the middle of practice, a
 * database that cannot be written.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type MatchSummary, REPLAY_VERSION, type ReplayFile } from '../../src/match';
import { type RunningServer, createAppServer, listen } from '../../src/server/server';
import { studyRoutes } from '../../src/server/studyRoutes';
import { DEFAULT_CONFIG } from '../../src/sim';
import { type Step, StudyStore, analyzeStudy, createStudy } from '../../src/survey';
import { TEST_PLATFORM } from '../helpers/platform';
import { humanEpisode, manualClock, quickStudy } from './fixture';

const STUDY = 'derive-study';
const clock = manualClock();

let dir: string;
let store: StudyStore;
let running: RunningServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hillmind-derive-'));
  mkdirSync(join(dir, 'dist'));
  writeFileSync(join(dir, 'dist', 'study.html'), '<!doctype html>');
  store = StudyStore.open(join(dir, 'studies.sqlite'), { now: clock.now });
  await createStudy(store, quickStudy(STUDY), TEST_PLATFORM);
  running = await listen(createAppServer({ root: join(dir, 'dist'), routes: [studyRoutes({ root: join(dir, 'dist'), store, models: TEST_PLATFORM.models, sessionsPerMinute: 1000 })] }), 0);
});

afterAll(async () => {
  await running?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function api(method: string, path: string, body: unknown, token?: string): Promise<{ status: number; body: Record<string, unknown> & { error?: { kind: string; message: string } } }> {
  const res = await fetch(`http://127.0.0.1:${running.port}/api/study/${STUDY}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { 'x-study-token': token } : {}) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { error?: { kind: string; message: string } } };
}

const stepOf = (r: { body: Record<string, unknown> }) => (r.body.state as { step: Step }).step;

/** A new participant at their first block episode (practice skipped). */
async function atFirstBlock(): Promise<{ token: string; step: Extract<Step, { kind: 'play' }>; id: number }> {
  const started = await api('POST', '/session', { consent: true });
  const token = started.body.token as string;
  await api('POST', '/instructions', {}, token);
  const step = stepOf(await api('POST', '/practice/skip', {}, token));
  if (step.kind !== 'play') throw new Error(`expected play, got ${step.kind}`);
  return { token, step, id: store.participants(STUDY).at(-1)!.id };
}

/** Start the step's episode as the page does and play it for as long as it lasts (the clock moves on by its length and 3 s). */
async function played(step: Step, token: string): Promise<{ replay: ReplayFile; summary: MatchSummary }> {
  if (step.kind !== 'play' && step.kind !== 'practice') throw new Error(`not an episode step: ${step.kind}`);
  expect((await api('POST', '/attempts', { block: step.block, episode: step.episode }, token)).status).toBe(200);
  const episode = await humanEpisode(step.opponent, step.seed, { ...DEFAULT_CONFIG, episodeSeconds: step.episodeSeconds ?? 60 });
  clock.advance(episode.replay.ticks / DEFAULT_CONFIG.tickHz + 3);
  return episode;
}

describe('results the server derives', () => {
  it('a real replay whose outcome says the participant won is stored with the re-simulated outcome, flagged and left out of the win rates', async () => {
    const { token, step, id } = await atFirstBlock();
    const { replay, summary } = await played(step, token);
    expect(replay.outcome).toBe('draw'); // a one-second episode
    const r = await api('POST', '/episodes', { block: step.block, episode: step.episode, replay: { ...replay, outcome: 'blue' }, summary: { ...summary, winner: 'blue' } }, token);
    expect(r.status).toBe(200);
    const [stored] = store.participantEpisodes(id);
    expect(stored).toMatchObject({ outcome: 'draw', replayOk: false, ticks: replay.ticks });
    const verification = (store.summaryJson(stored!.id) as { verification: { problems: string[] } }).verification;
    expect(verification.problems).toEqual(['outcome: the file says blue; the re-simulation gives draw', 'summary winner: sent blue; the re-simulation gives draw']);
    const analysis = analyzeStudy(store.studyData(STUDY));
    const team = analysis.winRates.find((w) => w.team === step.opponent)!;
    expect(team.episodes).toBe(0);
    expect(analysis.episodes.excluded).toBe(1);
    expect(analysis.notes.join(' ')).toMatch(/1 block episodes among them are excluded from every analysis/);
  });

  it('a replay whose hash does not match is stored with what its actions re-simulate to, flagged and excluded', async () => {
    const { token, step, id } = await atFirstBlock();
    const { replay, summary } = await played(step, token);
    const forged = { ...replay, actions: replay.actions.map((a) => (a[1] === 2 ? ([a[0], a[1], 0, 0, 0, 0, 0] as typeof a) : a)) };
    const r = await api('POST', '/episodes', { block: step.block, episode: step.episode, replay: forged, summary }, token);
    expect(r.status).toBe(200);
    const [stored] = store.participantEpisodes(id);
    expect(stored!.replayOk).toBe(false);
    const verification = (store.summaryJson(stored!.id) as { verification: { problems: string[] } }).verification;
    expect(verification.problems).toContainEqual(expect.stringMatching(/^finalHash: the file says [0-9a-f]{16}; the re-simulation gives [0-9a-f]{16}$/));
    // Where it parted is kept beside the first problem, for the admin page and the exports.
    expect(stored!.problem).toBe(verification.problems[0]);
    expect(stored!.divergedByTick).toBeGreaterThan(0);
    expect(stored!.divergedByTick).toBeLessThanOrEqual(replay.ticks);
    expect(analyzeStudy(store.studyData(STUDY)).episodes.excluded).toBe(2);
  });

  it("an honest episode is stored with the re-simulation's summary (per-agent counts), not the page's", async () => {
    const { token, step, id } = await atFirstBlock();
    const { replay, summary } = await played(step, token);
    const r = await api('POST', '/episodes', { block: step.block, episode: step.episode, replay, summary }, token);
    expect(r.status).toBe(200);
    const [stored] = store.participantEpisodes(id);
    expect(stored).toMatchObject({ replayOk: true, outcome: summary.winner, progressBlue: summary.progress.blue, progressRed: summary.progress.red });
    const kept = store.summaryJson(stored!.id) as MatchSummary & { verification: { ok: boolean; sides: Record<string, { checked: boolean }> } };
    expect(kept.agents).toEqual(summary.agents);
    expect(kept.verification.ok).toBe(true);
    expect(kept.verification.sides.blue!.checked).toBe(true);
    expect(kept.verification.sides.red!.checked).toBe(true);
  });

  it('a replay cut short of its end is refused: it says the match did not end', async () => {
    const { token, step } = await atFirstBlock();
    const { replay } = await played(step, token);
    const every = replay.checkpoints.every;
    const cut = {
      ...replay,
      ticks: 20,
      checkpoints: { every, hashes: replay.checkpoints.hashes.slice(0, 16 * Math.floor(20 / every)) },
      actions: replay.actions.filter((a) => a[0] < 20),
      decisions: replay.decisions.filter((d) => d.tick < 20),
    };
    const r = await api('POST', '/episodes', { block: step.block, episode: step.episode, replay: cut }, token);
    expect(r.status).toBe(400);
    expect(r.body.error?.message).toBe("the episode is not finished: its replay stops at tick 20, before the episode's end at tick 50, and no side won");
  });
});

describe('malformed episodes get a 4xx, never a 500', () => {
  it('an action naming an agent the world lacks: 400', async () => {
    const { token, step } = await atFirstBlock();
    const { replay } = await played(step, token);
    const bad = { ...replay, actions: [...replay.actions.slice(0, 4), [1, 17, 0, 0, 0, 0, 0]] };
    const r = await api('POST', '/episodes', { block: step.block, episode: step.episode, replay: bad }, token);
    expect(r.status).toBe(400);
    expect(r.body.error?.message).toBe('the replay action row 4 names agent 17; the world has 4');
  });

  it('a deeply nested summary or replay: 400', async () => {
    const { token, step } = await atFirstBlock();
    const { replay, summary } = await played(step, token);
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const body = (summaryText: string, replayText: string) => `{"block":${step.block},"episode":${step.episode},"replay":${replayText},"summary":${summaryText}}`;
    const nested = await api('POST', '/episodes', body(`{"agents":${deep}}`, JSON.stringify(replay)), token);
    expect(nested.status).toBe(400);
    expect(nested.body.error?.message).toMatch(/^invalid request at summary/);
    const hidden = await api('POST', '/episodes', body(JSON.stringify({ ...summary, extra: 'x' }).replace('"extra":"x"', `"extra":${deep}`), JSON.stringify(replay)), token);
    expect(hidden.status).toBe(200); // fields the server does not know are dropped unread
    const { token: other, step: next } = await atFirstBlock();
    await api('POST', '/attempts', { block: next.block, episode: next.episode }, other);
    clock.advance(60);
    const inReplay = await api('POST', '/episodes', `{"block":${next.block},"episode":${next.episode},"replay":{"format":"hillmind-replay","version":${REPLAY_VERSION},"config":${deep}}}`, other);
    expect(inReplay.status).toBe(400);
    expect(inReplay.body.error?.message).toMatch(/^the replay is malformed at /);
  });
});

describe('practice', () => {
  it('storing the practice episode and ending practice are one transaction: a crash between them leaves neither', async () => {
    const started = await api('POST', '/session', { consent: true });
    const token = started.body.token as string;
    const step = stepOf(await api('POST', '/instructions', {}, token));
    expect(step.kind).toBe('practice');
    const id = store.participants(STUDY).at(-1)!.id;
    const { replay, summary } = await played(step, token);
    const body = { block: -1, episode: 0, replay, summary };
    const crash = vi.spyOn(store, 'markStep').mockImplementationOnce(() => {
      throw new Error('the process died here');
    });
    try {
      expect((await api('POST', '/episodes', body, token)).status).toBe(500);
    } finally {
      crash.mockRestore();
    }
    expect(store.participantEpisodes(id)).toEqual([]);
    expect(store.participant(id)!.practiceAt).toBeNull();
    // The page sends it again, and the participant moves on.
    const retried = await api('POST', '/episodes', body, token);
    expect(retried.status).toBe(200);
    expect(stepOf(retried).kind).toBe('play');
    expect(store.participantEpisodes(id)).toHaveLength(1);
  });
});

describe('a database that cannot be written', () => {
  it('answers 503 naming the file, and stores nothing', async () => {
    const { token, step, id } = await atFirstBlock();
    const { replay, summary } = await played(step, token);
    store.db.pragma('query_only = ON');
    try {
      const r = await api('POST', '/episodes', { block: step.block, episode: step.episode, replay, summary }, token);
      expect(r.status).toBe(503);
      expect(r.body.error?.message).toBe(`the study database ${join(dir, 'studies.sqlite')} cannot be used: attempt to write a readonly database`);
    } finally {
      store.db.pragma('query_only = OFF');
    }
    expect(store.participantEpisodes(id)).toEqual([]);
  });

  it('still answers every GET of the study API: reading a session writes nothing', async () => {
    const { token, step } = await atFirstBlock();
    store.db.pragma('query_only = ON');
    try {
      const session = await api('GET', '/session', undefined, token);
      expect(session.status, JSON.stringify(session.body)).toBe(200);
      expect(stepOf(session)).toEqual(step);
      expect((await api('GET', '', undefined)).status).toBe(200);
    } finally {
      store.db.pragma('query_only = OFF');
    }
  });
});
