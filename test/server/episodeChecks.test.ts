/**
 * Episode checks on worker threads: the same verdict as on the calling thread, a time
 * limit, and a server that never parses an episode body on its main thread (where one
 * hostile 8 MiB body held every participant for 8-13 s).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ReplayFile } from '../../src/match';
import { episodeCheckPool } from '../../src/server/episodeChecks';
import { type RunningServer, createAppServer, listen } from '../../src/server/server';
import { studyRoutes } from '../../src/server/studyRoutes';
import { DEFAULT_CONFIG } from '../../src/sim';
import { type EpisodeChecker, type EpisodeExpectation, type Step, StudyStore, checkEpisode, createStudy } from '../../src/survey';
import { readPlatformSpec } from '../../src/teams/nodePlatform';
import { TEST_PLATFORM } from '../helpers/platform';
import { humanEpisode, manualClock, quickStudy } from '../survey/fixture';

const STUDY = 'pool-study';
// The shipped models, no language model: what the server's threads are given.
const SPEC = readPlatformSpec({});
const clock = manualClock();
const dir = mkdtempSync(join(tmpdir(), 'hillmind-pool-'));
let pool: EpisodeChecker;
let store: StudyStore;
let running: RunningServer;

beforeAll(async () => {
  pool = episodeCheckPool({ spec: SPEC });
  store = StudyStore.open(':memory:', { now: clock.now });
  await createStudy(store, quickStudy(STUDY), TEST_PLATFORM);
  running = await listen(createAppServer({ root: dir, routes: [studyRoutes({ root: dir, store, checker: pool, sessionsPerMinute: 1000 })] }), 0);
});

afterAll(async () => {
  await running?.close();
  await pool?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const config = { ...DEFAULT_CONFIG, episodeSeconds: 1 };
const expectation = (seed: number): EpisodeExpectation => ({
  block: 0,
  episode: 0,
  seed,
  opponent: 'heuristic',
  teammate: 'bt-scripted',
  config,
  personTeammate: false,
  maxTicks: 100,
  attemptAgeSeconds: 2,
});

describe('episode checks on worker threads', () => {
  it('give the verdict the calling thread gives', async () => {
    const { replay, summary } = await humanEpisode('heuristic', 5, config);
    const body = JSON.stringify({ block: 0, episode: 0, replay, summary });
    const here = await checkEpisode(body, expectation(5), TEST_PLATFORM.models);
    expect(here).toMatchObject({ kind: 'store', replayOk: true });
    expect(await pool.check(Buffer.from(body), expectation(5))).toEqual(here);
    expect(await pool.check(body, expectation(6))).toEqual({ kind: 'refused', status: 400, message: "the replay's seed 5 is not the planned 6" });
  });

  it("check every AI agent of a human episode, holding the replay's record of who played to the study's plan", async () => {
    const { replay } = await humanEpisode('heuristic', 5, config);
    expect(replay.people).toEqual({ blue: { agents: [0], teammate: 'bt-scripted' } });
    const send = (sent: ReplayFile) => pool.check(JSON.stringify({ block: 0, episode: 0, replay: sent }), expectation(5));
    expect(await send(replay)).toMatchObject({
      kind: 'store',
      replayOk: true,
      humanAgents: [0],
      summary: { verification: { sides: { blue: { checked: true, how: 'scripted skills', decisions: 'derived again' } } } },
    });
    expect(await send({ ...replay, people: { blue: { agents: [1], teammate: 'bt-scripted' } } })).toMatchObject({
      kind: 'store',
      replayOk: false,
      problem: "people.blue: the file says people played agent 1 beside 'bt-scripted'; the match was planned with agent 0 beside 'bt-scripted'",
    });
  });

  it('end a check that runs past its time limit, answering 503', async () => {
    const { replay } = await humanEpisode('heuristic', 5, config);
    const hurried = episodeCheckPool({ spec: SPEC, timeoutMs: 1 });
    try {
      expect(await hurried.check(JSON.stringify({ block: 0, episode: 0, replay }), expectation(5))).toEqual({
        kind: 'refused',
        status: 503,
        message: 'checking the episode took longer than 0.001 s; try sending it again',
      });
    } finally {
      await hurried.close();
    }
  });

  it('are built from a platform spec, and refuse one that is not a spec at start, saying which field is wrong', () => {
    expect(() => episodeCheckPool({ spec: { ...SPEC, models: '' } })).toThrow(/^not a platform spec: models: /);
  });

  it("keep an 8 MiB hostile episode off the server's main thread: it is refused there unparsed", async () => {
    const api = (path: string, body: string, token?: string) =>
      fetch(`http://127.0.0.1:${running.port}/api/study/${STUDY}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { 'x-study-token': token } : {}) }, body });
    const token = ((await (await api('/session', JSON.stringify({ consent: true }))).json()) as { token: string }).token;
    await api('/instructions', '{}', token);
    const step = ((await (await api('/practice/skip', '{}', token)).json()) as { state: { step: Step } }).state.step;
    if (step.kind !== 'play') throw new Error(`expected play, got ${step.kind}`);
    await api('/attempts', JSON.stringify({ block: step.block, episode: step.episode }), token);
    clock.advance(5);
    const { replay } = await humanEpisode(step.opponent, step.seed, { ...DEFAULT_CONFIG, episodeSeconds: step.episodeSeconds ?? 60 });
    // Half a million action rows, every number out of range.
    const rows = Array<string>(500_000).fill('[0,9,5,5,5,5,5]').join(',');
    const body = `{"block":${step.block},"episode":${step.episode},"replay":${JSON.stringify({ ...replay, actions: [] }).replace('"actions":[]', `"actions":[${rows}]`)}}`;
    expect(body.length).toBeGreaterThan(7.5 * 1024 * 1024);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const r = await api('/episodes', body, token);
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: { message: string } }).error.message).toBe('the replay has 500000 action rows; 4 agents over 51 ticks have at most 204 (one per agent and tick)');
      expect(parse.mock.calls.filter(([text]) => typeof text === 'string' && text.length > 64 * 1024)).toEqual([]);
    } finally {
      parse.mockRestore();
    }
  });
});

describe('one episode at a time per session', () => {
  it('a second episode sent while the first is being checked is answered 429, saying why; the first is answered as usual', async () => {
    let release: (() => void) | null = null;
    const held: EpisodeChecker = {
      check: () => new Promise((done) => (release = () => done({ kind: 'refused', status: 400, message: 'checked' }))),
      close: async () => undefined,
    };
    const heldStore = StudyStore.open(':memory:', { now: clock.now });
    await createStudy(heldStore, quickStudy(STUDY), TEST_PLATFORM);
    const server = await listen(createAppServer({ root: dir, routes: [studyRoutes({ root: dir, store: heldStore, checker: held, sessionsPerMinute: 1000 })] }), 0);
    try {
      const api = (path: string, body: string, token?: string) =>
        fetch(`http://127.0.0.1:${server.port}/api/study/${STUDY}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { 'x-study-token': token } : {}) }, body });
      const token = ((await (await api('/session', JSON.stringify({ consent: true }))).json()) as { token: string }).token;
      const first = api('/episodes', '{"block":-1,"episode":0,"replay":{}}', token);
      // Wait until the first is with the checker.
      await vi.waitFor(() => expect(release).not.toBeNull());
      const second = await api('/episodes', '{"block":-1,"episode":0,"replay":{}}', token);
      expect(second.status).toBe(429);
      expect(await second.json()).toEqual({ error: { kind: 'rate-limit', message: 'an episode of this session is being checked: wait for its answer before sending another' } });
      release!();
      const answered = await first;
      expect(answered.status).toBe(400);
      expect(await answered.json()).toEqual({ error: { kind: 'invalid', message: 'checked' } });
    } finally {
      await server.close();
      heldStore.close();
    }
  });
});
