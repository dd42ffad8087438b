/**
 * What the study takes of an episode, beyond its replay's claims: it must have been
 * started on record, arrive no sooner than its play allows, and fit the participant's
 * storage quota; and an episode whose re-simulation parts from the page's (a browser and
 * Node differing) is kept, flagged, and shown to the researcher, never dropped.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatchSummary, ReplayFile } from '../../src/match';
import { type RunningServer, createAppServer, listen } from '../../src/server/server';
import { studyRoutes } from '../../src/server/studyRoutes';
import { DEFAULT_CONFIG } from '../../src/sim';
import { type Step, StudyStore, createStudy, studyCsv, studyJson } from '../../src/survey';
import { TEST_PLATFORM } from '../helpers/platform';
import { humanEpisode, manualClock, quickStudy } from './fixture';

/** One-second episodes (quick to play). */
const QUICK = 'limits-quick';
/** Ten-second episodes and a 0.1 MiB quota per participant. */
const TIMED = 'limits-timed';

const clock = manualClock();
let dir: string;
let store: StudyStore;
let running: RunningServer;
let adminToken: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hillmind-limits-'));
  mkdirSync(join(dir, 'dist'));
  writeFileSync(join(dir, 'dist', 'study.html'), '<!doctype html>');
  store = StudyStore.open(join(dir, 'studies.sqlite'), { now: clock.now });
  ({ adminToken } = await createStudy(store, quickStudy(QUICK), TEST_PLATFORM));
  await createStudy(store, { ...quickStudy(TIMED), episodeSeconds: 10, storageQuotaMiB: 0.1 }, TEST_PLATFORM);
  running = await listen(createAppServer({ root: join(dir, 'dist'), routes: [studyRoutes({ root: join(dir, 'dist'), store, models: TEST_PLATFORM.models, sessionsPerMinute: 1000, now: () => clock.now().getTime() })] }), 0);
});

afterAll(async () => {
  await running?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function api(study: string, method: string, path: string, body: unknown, token?: string): Promise<{ status: number; body: Record<string, unknown> & { error?: { kind: string; message: string } } }> {
  const res = await fetch(`http://127.0.0.1:${running.port}/api/study/${study}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { 'x-study-token': token } : {}) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { error?: { kind: string; message: string } } };
}

/** A new participant of `study` at their first block episode (practice skipped). */
async function atFirstBlock(study: string): Promise<{ token: string; step: Extract<Step, { kind: 'play' }>; id: number }> {
  const token = (await api(study, 'POST', '/session', { consent: true })).body.token as string;
  await api(study, 'POST', '/instructions', {}, token);
  const step = ((await api(study, 'POST', '/practice/skip', {}, token)).body.state as { step: Step }).step;
  if (step.kind !== 'play') throw new Error(`expected play, got ${step.kind}`);
  return { token, step, id: store.participants(study).at(-1)!.id };
}

const play = (step: Extract<Step, { kind: 'play' }>): Promise<{ replay: ReplayFile; summary: MatchSummary }> =>
  humanEpisode(step.opponent, step.seed, { ...DEFAULT_CONFIG, episodeSeconds: step.episodeSeconds ?? 60 });

const episodeBody = (step: Extract<Step, { kind: 'play' }>, replay: unknown, summary?: unknown) => ({ block: step.block, episode: step.episode, replay, ...(summary ? { summary } : {}) });

describe('an episode whose re-simulation parts from the page', () => {
  it('is kept with the outcome the server re-simulates (here unfinished), flagged with why and by which tick, on the admin page and in the exports', async () => {
    const { token, step, id } = await atFirstBlock(QUICK);
    await api(QUICK, 'POST', '/attempts', { block: step.block, episode: step.episode }, token);
    const { replay } = await play(step);
    clock.advance(5);
    // The page's engine saw blue win at tick 40, its state parting from Node's after tick 20.
    const every = replay.checkpoints.every;
    const hashes = replay.checkpoints.hashes.slice(0, 16 * Math.floor(40 / every));
    const parted: ReplayFile = {
      ...replay,
      ticks: 40,
      outcome: 'blue',
      checkpoints: { every, hashes: hashes.slice(0, 16 * (20 / every)) + hashes.slice(16 * (20 / every)).replace(/[0-9a-f]/g, (c) => (c === '0' ? '1' : '0')) },
      actions: replay.actions.filter((a) => a[0] < 40),
      decisions: replay.decisions.filter((d) => d.tick < 40),
    };
    const r = await api(QUICK, 'POST', '/episodes', episodeBody(step, parted), token);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(((r.body.state as { step: Step }).step as { kind: string }).kind).toBe('rate');

    const [stored] = store.participantEpisodes(id);
    expect(stored).toMatchObject({ outcome: 'unfinished', ticks: 40, replayOk: false, divergedByTick: 30 });
    expect(stored!.problem).toMatch(/^the re-simulation leaves the recorded match between tick 20 and tick 30/);

    const progress = (await (await fetch(`http://127.0.0.1:${running.port}/api/admin/study/${QUICK}`, { headers: { 'x-admin-token': adminToken } })).json()) as {
      counts: { unverified: number };
      unverified: { participant: number; outcome: string; divergedByTick: number; problem: string }[];
    };
    expect(progress.counts.unverified).toBe(1);
    expect(progress.unverified).toEqual([expect.objectContaining({ participant: 1, outcome: 'unfinished', ticks: 40, divergedByTick: 30, problem: stored!.problem })]);

    const data = store.studyData(QUICK);
    const [header, row] = studyCsv(data, 'episodes').split('\r\n');
    expect(header).toMatch(/,replay_ok,problem,diverged_by_tick,created_at$/);
    expect(row).toContain(`,unfinished,0,40,`);
    expect(row).toContain(`,0,${stored!.problem},30,`);
    const doc = JSON.parse(studyJson(store, data)) as { episodes: { outcome: string; replayOk: boolean; problem: string; divergedByTick: number }[] };
    expect(doc.episodes).toEqual([expect.objectContaining({ outcome: 'unfinished', replayOk: false, problem: stored!.problem, divergedByTick: 30 })]);
  });
});

describe('when an episode may arrive', () => {
  it('only after the page recorded its start: an episode never started is refused, saying why', async () => {
    const { token, step, id } = await atFirstBlock(QUICK);
    const { replay, summary } = await play(step);
    clock.advance(60);
    const r = await api(QUICK, 'POST', '/episodes', episodeBody(step, replay, summary), token);
    expect(r.status).toBe(409);
    expect(r.body.error?.message).toBe("episode 1 of block 1 was not started: the page records an episode's start (POST /attempts) before it is played, and its result is taken only after that");
    expect(store.participantEpisodes(id)).toEqual([]);
  });

  it('no sooner than its play allows after that start (a second of tolerance), saying why', async () => {
    const { token, step, id } = await atFirstBlock(TIMED);
    await api(TIMED, 'POST', '/attempts', { block: step.block, episode: step.episode }, token);
    const { replay, summary } = await play(step);
    expect(replay.ticks).toBe(500); // a ten-second draw
    const send = () => api(TIMED, 'POST', '/episodes', episodeBody(step, replay, summary), token);
    clock.advance(0.8);
    expect(await send()).toEqual({ status: 400, body: { error: { kind: 'invalid', message: 'this episode was started 0.8 s ago; no episode ends in less than 8 s of play, so its result cannot be in yet' } } });
    clock.advance(7.2);
    expect(await send()).toEqual({
      status: 400,
      body: { error: { kind: 'invalid', message: "the replay covers 10.0 s of play, but this episode was started 8.0 s ago: an episode's result arrives no sooner than its play allows" } },
    });
    expect(store.participantEpisodes(id)).toEqual([]);
    clock.advance(1.5);
    expect((await send()).status).toBe(200);
    expect(store.participantEpisodes(id)).toHaveLength(1);
  });
});

describe("a participant's storage quota", () => {
  it('refuses a replay that would take the participant past the quota with a 413 naming it; an honest one still fits', async () => {
    const { token, step, id } = await atFirstBlock(TIMED);
    await api(TIMED, 'POST', '/attempts', { block: step.block, episode: step.episode }, token);
    const { replay, summary } = await play(step);
    clock.advance(11);
    // Padded with the longest rationales a decision may carry: about 200 KB, twice the quota.
    const padded = {
      ...replay,
      decisions: Array.from({ length: 100 }, (_, i) => ({ tick: 2 * i + (i % 2), team: i % 2, skills: ['navigate', 'secure'], source: i % 2 ? 'behavior-tree' : 'human', rationale: 'x'.repeat(2000) })),
    };
    const refused = await api(TIMED, 'POST', '/episodes', episodeBody(step, padded), token);
    expect(refused.status).toBe(413);
    expect(refused.body.error?.message).toBe('each participant may store at most 0.1 MiB of replays in this study (its storageQuotaMiB); 0.0 MiB are stored and this replay takes 0.2 MiB');
    expect(store.participantEpisodes(id)).toEqual([]);
    expect((await api(TIMED, 'POST', '/episodes', episodeBody(step, replay, summary), token)).status).toBe(200);
    expect(store.storedReplayBytes(id)).toBe(Buffer.byteLength(JSON.stringify(replay)));
  });
});

describe('how often a session may send episodes', () => {
  it('six a minute: a seventh is answered 429 before it is read, saying when to try again', async () => {
    const { token, step } = await atFirstBlock(QUICK);
    const junk = { block: step.block, episode: step.episode, replay: { format: 'hillmind-replay' } };
    for (let i = 0; i < 6; i++) expect((await api(QUICK, 'POST', '/episodes', junk, token)).status).toBe(409);
    expect(await api(QUICK, 'POST', '/episodes', junk, token)).toEqual({ status: 429, body: { error: { kind: 'rate-limit', message: 'too many episodes sent by this session; try again in 10 s' } } });
    clock.advance(10);
    expect((await api(QUICK, 'POST', '/episodes', junk, token)).status).toBe(409);
  });
});
