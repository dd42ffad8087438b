/**
 * Property-based tests of the study API's request schemas, over HTTP: random bodies,
 * random text and valid requests with one field mutated get a 2xx or a 4xx with an
 * error that says what is wrong, never a 500 or a hang, on every route.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiErrorSchema } from '../../src/server/apiError';
import { type RunningServer, createAppServer, listen } from '../../src/server/server';
import { studyRoutes } from '../../src/server/studyRoutes';
import { DEFAULT_CONFIG } from '../../src/sim';
import { type Step, StudyStore, createStudy } from '../../src/survey';
import { TEST_PLATFORM } from '../helpers/platform';
import { humanEpisode, manualClock, quickStudy } from './fixture';
import { mutate, mutation } from '../helpers/fuzz';

const STUDY = 'fuzz-study';
const RUNS = { numRuns: 25, seed: 29 };
const dir = mkdtempSync(join(tmpdir(), 'hillmind-fuzz-'));
let store: StudyStore;
let running: RunningServer;
let adminToken: string;
const clock = manualClock();

beforeAll(async () => {
  store = StudyStore.open(':memory:', { now: clock.now });
  ({ adminToken } = await createStudy(store, quickStudy(STUDY), TEST_PLATFORM));
  running = await listen(createAppServer({ root: dir, routes: [studyRoutes({ root: dir, store, models: TEST_PLATFORM.models, sessionsPerMinute: 1_000_000 })] }), 0);
});

afterAll(async () => {
  await running?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${running.port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
}

/** A 2xx, or a 4xx in the API's error shape whose message is one line of words. */
function expectAnswered(r: { status: number; body: Record<string, unknown> }): void {
  expect(r.status, JSON.stringify(r.body)).toBeGreaterThanOrEqual(200);
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
  if (r.status >= 400) {
    const { error } = apiErrorSchema.parse(r.body);
    expect(error.message).not.toMatch(/\n\s+at /);
  }
}

async function session(): Promise<string> {
  const r = await post(`/api/study/${STUDY}/session`, '{"consent":true}');
  return r.body.token as string;
}

const anyBody = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 100, unit: 'binary' }),
  fc.constantFrom('', '{', 'null', '[]', '{"__proto__":{"admin":true}}', `${'['.repeat(5000)}${']'.repeat(5000)}`),
);

/** Every participant route with a valid body for it. */
const ROUTES: Record<string, unknown> = {
  session: { consent: true, external: { PROLIFIC_PID: 'p-1', STUDY_ID: 's' } },
  instructions: {},
  'practice/skip': {},
  ratings: { block: 0, likert: { challenge: 3, skill: 3, coordination: 3, enjoyment: 3, humanlike: 3 }, open: { behaviours: 'text' } },
  choice: { label: 'Team 1', reason: 'because' },
  background: { answers: { gaming: 'Never', team_games: 'None' } },
  judgements: { clip: 0, episodeId: 1, judgements: [{ agent: 0, human: true }] },
};

describe('the study API under random and mutated requests', () => {
  for (const [route, valid] of Object.entries(ROUTES)) {
    it(`POST /api/study/<id>/${route}: random bodies and mutated valid ones get a 2xx or a 4xx`, async () => {
      const token = await session();
      await fc.assert(
        fc.asyncProperty(fc.oneof(anyBody, mutation.map((m) => JSON.stringify(mutate(valid, m)))), async (body) => {
          expectAnswered(await post(`/api/study/${STUDY}/${route}`, body, { 'x-study-token': token }));
        }),
        RUNS,
      );
    });
  }

  it('POST /api/study/<id>/episodes: mutated real episodes get a 2xx or a 4xx', async () => {
    const token = await session();
    const step = (await post(`/api/study/${STUDY}/instructions`, '{}', { 'x-study-token': token })).body.state as { step: Step };
    if (step.step.kind !== 'practice') throw new Error(`expected practice, got ${step.step.kind}`);
    const { replay, summary } = await humanEpisode(step.step.opponent, step.step.seed, { ...DEFAULT_CONFIG, episodeSeconds: step.step.episodeSeconds ?? 60 });
    const valid = { block: step.step.block, episode: step.step.episode, replay, summary };
    await fc.assert(
      fc.asyncProperty(fc.oneof(anyBody, mutation.map((m) => JSON.stringify(mutate(valid, m)))), async (body) => {
        // Each run its own participant, so an accepted episode does not move the next run on.
        const fresh = await session();
        await post(`/api/study/${STUDY}/instructions`, '{}', { 'x-study-token': fresh });
        await post(`/api/study/${STUDY}/attempts`, JSON.stringify({ block: valid.block, episode: valid.episode }), { 'x-study-token': fresh });
        clock.advance(5);
        expectAnswered(await post(`/api/study/${STUDY}/episodes`, body, { 'x-study-token': fresh }));
      }),
      RUNS,
    );
  });

  it('POST /api/admin/study/<id>/status: random bodies get a 2xx or a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(anyBody, mutation.map((m) => JSON.stringify(mutate({ status: 'open' }, m)))), async (body) => {
        expectAnswered(await post(`/api/admin/study/${STUDY}/status`, body, { 'x-admin-token': adminToken }));
      }),
      RUNS,
    );
    await post(`/api/admin/study/${STUDY}/status`, '{"status":"open"}', { 'x-admin-token': adminToken });
  });

  it('random content types, tokens and paths get a 4xx', async () => {
    const header = fc.string({ maxLength: 40, unit: 'grapheme-ascii' }).filter((h) => !/[\r\n]/.test(h));
    await fc.assert(
      fc.asyncProperty(header, header, fc.constantFrom('session', 'instructions', 'episodes', 'nope', 'ratings/x', '', 'clip'), async (type, token, route) => {
        let r: { status: number; body: Record<string, unknown> };
        try {
          r = await post(`/api/study/${STUDY}/${route}`, '{}', { 'content-type': type, 'x-study-token': token });
        } catch {
          return; // a header fetch itself will not send
        }
        expectAnswered(r);
      }),
      RUNS,
    );
  });
});
