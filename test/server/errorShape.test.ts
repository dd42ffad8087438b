/**
 * Every JSON API of the server answers its errors in one shape, {error: {kind, message,
 * help?}} (apiError.ts): the study API, the LLM proxy, the health check, unknown API routes,
 * and the refusals the server makes before any route (the Host rule, a malformed path),
 * whichever part refuses: a route, the framework (a body past its limit) or a rate limit.
 */
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatError, type LlmAccess, STRATEGIST_DEFAULTS, fixedLlmAccess } from '../../src/llm';
import { apiErrorSchema } from '../../src/server/apiError';
import { llmProxyRoutes } from '../../src/server/llmProxy';
import { type RunningServer, createAppServer, healthRoute, listen } from '../../src/server/server';
import { STUDY_MAX_BODY, studyRoutes } from '../../src/server/studyRoutes';
import { StudyStore, createStudy } from '../../src/survey';
import { TEST_PLATFORM } from '../helpers/platform';

const dir = mkdtempSync(join(tmpdir(), 'hillmind-errors-'));
let running: RunningServer;
let store: StudyStore;
let adminToken: string;
/** What the model does: answer, fail at its server, or not be configured. */
let model: 'answers' | 'fails' | 'absent' = 'answers';

const failing = fixedLlmAccess({
  client: {
    model: 'm',
    complete: async () => {
      if (model === 'fails') throw new ChatError('server', 'the model server broke');
      return { text: '1,2', model: 'm' };
    },
  },
  provider: 'test',
  settings: STRATEGIST_DEFAULTS,
  cache: null,
});
const access: LlmAccess = {
  ...failing,
  availability: async () => (model === 'absent' ? { ok: false, reason: 'no language model is configured', help: 'set OPENAI_BASE_URL' } : failing.availability()),
};

beforeAll(async () => {
  store = StudyStore.open(':memory:');
  ({ adminToken } = await createStudy(store, { id: 'shape-study', teams: ['heuristic', 'random'], episodesPerBlock: 1, episodeSeconds: 1 }, TEST_PLATFORM));
  // A clock that stands still: the limits' buckets never refill.
  const now = () => 0;
  running = await listen(
    createAppServer({
      root: dir,
      routes: [healthRoute(), llmProxyRoutes({ access, now, rate: { perSecond: 1, burst: 12 } }), studyRoutes({ root: dir, store, now, sessionsPerMinute: 5 })],
    }),
    0,
  );
});

afterAll(async () => {
  await running?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  readonly status: number;
  readonly type: string;
  readonly body: unknown;
}

/** node:http, so Host and Origin go out as given. */
function send(method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = httpRequest(`${running.url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => done({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: JSON.parse(text) as unknown }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

const json = { 'content-type': 'application/json' };
const chat = JSON.stringify({ messages: [{ role: 'user', content: 'which skills?' }], temperature: 0 });

/** The refusal is an error of the one shape, with this status and kind. */
function expectError(answer: Answer, status: number, kind: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.type).toMatch(/^application\/json/);
  const parsed = apiErrorSchema.safeParse(answer.body);
  expect(parsed.success, JSON.stringify(answer.body)).toBe(true);
  expect(parsed.data!.error.kind).toBe(kind);
}

describe('the one error shape', () => {
  it('the server itself: unknown API routes, methods a path does not take, malformed paths, other hosts', async () => {
    expectError(await send('GET', '/api/nothing'), 404, 'not-found');
    expectError(await send('POST', '/api/health', json, '{}'), 405, 'method-not-allowed');
    expectError(await send('GET', '/api/%E0%A4%A'), 400, 'invalid');
    expectError(await send('GET', '/api/health', { host: 'attacker.example' }), 403, 'forbidden');
  });

  it('the LLM proxy: refusals before the body, the body itself, the model', async () => {
    expectError(await send('POST', '/api/llm', { ...json, origin: 'https://evil.example' }, chat), 403, 'forbidden');
    expectError(await send('GET', '/api/llm/status', { origin: 'https://evil.example' }), 403, 'forbidden');
    expectError(await send('POST', '/api/llm', { 'content-type': 'text/plain' }, chat), 415, 'unsupported-media-type');
    expectError(await send('POST', '/api/llm', json, '{not json'), 400, 'invalid');
    expectError(await send('POST', '/api/llm', json, '{"messages":[]}'), 400, 'invalid');
    expectError(await send('POST', '/api/llm', json, Buffer.alloc(40 * 1024, 0x20)), 413, 'too-large');
    model = 'fails';
    expectError(await send('POST', '/api/llm', json, chat), 502, 'server');
    model = 'absent';
    const absent = await send('POST', '/api/llm', json, chat);
    expectError(absent, 503, 'unavailable');
    expect(absent.body).toMatchObject({ error: { help: 'set OPENAI_BASE_URL' } });
    model = 'answers';
    // The burst is spent by now (the clock stands still): the rate limit answers.
    let limited: Answer | undefined;
    for (let i = 0; i < 12 && !limited; i++) {
      const answer = await send('POST', '/api/llm', json, chat);
      if (answer.status === 429) limited = answer;
    }
    expectError(limited!, 429, 'rate-limit');
  });

  it('the study API: every refusal of a participant or a researcher', async () => {
    const study = '/api/study/shape-study';
    expectError(await send('GET', '/api/study/no-such-study'), 404, 'not-found');
    expectError(await send('POST', `${study}/session`, { ...json, origin: 'https://evil.example' }, '{"consent":true}'), 403, 'forbidden');
    expectError(await send('POST', `${study}/session`, { 'content-type': 'text/plain' }, '{"consent":true}'), 415, 'unsupported-media-type');
    expectError(await send('POST', `${study}/session`, json, '{"consent":false}'), 400, 'invalid');
    expectError(await send('POST', `${study}/session`, json, Buffer.alloc(STUDY_MAX_BODY + 1, 0x20)), 413, 'too-large');
    expectError(await send('GET', `${study}/session`), 401, 'unauthorized');
    expectError(await send('GET', `${study}/session`, { 'x-study-token': 'not-a-token' }), 401, 'unauthorized');
    expectError(await send('GET', '/api/admin/study/shape-study'), 401, 'unauthorized');
    expectError(await send('GET', '/api/admin/study/shape-study/export?format=xml', { 'x-admin-token': adminToken }), 400, 'invalid');
    const started = await send('POST', `${study}/session`, json, '{"consent":true}');
    expect(started.status).toBe(201);
    const token = (started.body as { token: string }).token;
    expectError(await send('POST', `${study}/ratings`, { ...json, 'x-study-token': token }, '{"block":0}'), 400, 'invalid');
    expectError(await send('POST', `${study}/choice`, { ...json, 'x-study-token': token }, '{"label":"Team 2","reason":"x"}'), 409, 'conflict');
    await send('POST', '/api/admin/study/shape-study/status', { ...json, 'x-admin-token': adminToken }, '{"status":"closed"}');
    expectError(await send('POST', `${study}/session`, json, '{"consent":true}'), 410, 'gone');
    // The clock stands still: the new sessions' burst runs out.
    let limited: Answer | undefined;
    for (let i = 0; i < 5 && !limited; i++) {
      const answer = await send('POST', `${study}/session`, json, '{"consent":true}');
      if (answer.status === 429) limited = answer;
    }
    expectError(limited!, 429, 'rate-limit');
  });
});
