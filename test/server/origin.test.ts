/**
 * The API answers only its own pages, and only JSON: another site's page cannot spend the
 * LLM key or write study data with a "simple" cross-site POST; the key never comes back,
 * not even inside a model's answer.
 */
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatClient, STRATEGIST_DEFAULTS, fixedLlmAccess } from '../../src/llm';
import { llmProxyRoutes } from '../../src/server/llmProxy';
import { type RunningServer, createAppServer, listen } from '../../src/server/server';
import { studyRoutes } from '../../src/server/studyRoutes';
import { StudyStore, createStudy } from '../../src/survey';
import { TEST_PLATFORM } from '../helpers/platform';

const KEY = 'sk-origin-secret-77aa';
const dir = mkdtempSync(join(tmpdir(), 'hillmind-origin-'));
let running: RunningServer;
let store: StudyStore;
let adminToken: string;
let own: string;
/** What the model answers: here it repeats the key it was tricked into revealing. */
const echoKey: ChatClient = { model: 'echo', complete: async () => ({ text: `1,3 and the key is ${KEY}`, model: `echo-${KEY}` }) };

beforeAll(async () => {
  store = StudyStore.open(':memory:');
  ({ adminToken } = await createStudy(store, { id: 'origin-study', teams: ['heuristic', 'random'], episodesPerBlock: 1, episodeSeconds: 1 }, TEST_PLATFORM));
  // The key is the connection's secret, as a server's OPENAI_API_KEY is.
  const access = fixedLlmAccess({ client: echoKey, provider: 'test', settings: STRATEGIST_DEFAULTS, cache: null, secrets: [KEY] });
  running = await listen(createAppServer({ root: dir, routes: [llmProxyRoutes({ access }), studyRoutes({ root: dir, store })], hosts: ['study.example.org'] }), 0);
  own = `http://127.0.0.1:${running.port}`;
});

afterAll(async () => {
  await running?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** node:http, so every header (Origin, Sec-Fetch-Site) goes out as a browser would send it. */
function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((done, fail) => {
    const req = httpRequest(`${own}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => done({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

const chat = JSON.stringify({ messages: [{ role: 'user', content: 'which skills?' }], temperature: 0 });
const json = { 'content-type': 'application/json' };

describe('POST /api/llm', () => {
  it('refuses a text/plain cross-site POST (the simple request any page can send): 403', async () => {
    const r = await send('POST', '/api/llm', { 'content-type': 'text/plain', origin: 'https://evil.example' }, chat);
    expect(r.status).toBe(403);
    expect(JSON.parse(r.text).error).toEqual({ kind: 'forbidden', message: 'requests from https://evil.example are refused: this API answers pages of its own origin only' });
  });

  it('refuses JSON from another origin, a null origin and a cross-site fetch without Origin', async () => {
    const foreign: Record<string, string>[] = [{ origin: 'https://evil.example' }, { origin: 'null' }, { origin: 'http://localhost:1' }, { 'sec-fetch-site': 'cross-site' }];
    for (const headers of foreign) {
      expect((await send('POST', '/api/llm', { ...json, ...headers }, chat)).status).toBe(403);
    }
    expect((await send('GET', '/api/llm/status', { origin: 'https://evil.example' })).status).toBe(403);
  });

  it('refuses text/plain from its own page: 415', async () => {
    const r = await send('POST', '/api/llm', { 'content-type': 'text/plain', origin: own }, chat);
    expect(r.status).toBe(415);
    expect((await send('POST', '/api/llm', { 'content-type': 'application/json-patch+json', origin: own }, chat)).status).toBe(415);
  });

  it("answers its own page's JSON, with the key scrubbed from the model's answer", async () => {
    const r = await send('POST', '/api/llm', { ...json, origin: own }, chat);
    expect(r.status).toBe(200);
    expect(r.text).not.toContain(KEY);
    expect(JSON.parse(r.text)).toMatchObject({ text: '1,3 and the key is [key]', model: 'echo-[key]' });
    expect((await send('POST', '/api/llm', { ...json, 'sec-fetch-site': 'same-origin' }, chat)).status).toBe(200);
    expect((await send('GET', '/api/llm/status', { origin: own })).status).toBe(200);
  });
});

describe('the study API', () => {
  it('refuses another origin on every participant and researcher route: 403, nothing stored', async () => {
    const before = store.participants('origin-study').length;
    const evil = { ...json, origin: 'https://evil.example' };
    expect((await send('POST', '/api/study/origin-study/session', evil, '{"consent":true}')).status).toBe(403);
    expect((await send('POST', '/api/study/origin-study/session', { 'content-type': 'text/plain', origin: 'https://evil.example' }, '{"consent":true}')).status).toBe(403);
    expect((await send('GET', '/api/study/origin-study', { origin: 'https://evil.example' })).status).toBe(403);
    expect((await send('POST', '/api/admin/study/origin-study/status', { ...evil, 'x-admin-token': adminToken }, '{"status":"closed"}')).status).toBe(403);
    expect(store.participants('origin-study')).toHaveLength(before);
    expect(store.getStudy('origin-study')!.status).toBe('open');
  });

  it('takes JSON from its own pages, and text/plain from nobody (415)', async () => {
    expect((await send('POST', '/api/study/origin-study/session', { 'content-type': 'text/plain', origin: own }, '{"consent":true}')).status).toBe(415);
    expect((await send('POST', '/api/study/origin-study/session', { ...json, origin: own }, '{"consent":true}')).status).toBe(201);
  });

  it('serves the study page to links from other sites (recruitment platforms link to it)', async () => {
    const r = await send('GET', '/study/origin-study', { 'sec-fetch-site': 'cross-site' });
    expect(r.status).not.toBe(403);
  });
});

describe('the Host header (DNS rebinding: another site whose name is made to point here)', () => {
  const as = (host: string) => ({ host: `${host}:${running.port}` });

  it('answers its own names: the loopback ones and those it is given', async () => {
    for (const host of ['127.0.0.1', 'localhost', 'LocalHost', '[::1]', 'study.example.org']) {
      expect((await send('GET', '/api/study/origin-study', as(host))).status, host).toBe(200);
    }
  });

  it('refuses any other host on every route with a 403 that says which hosts it answers to; nothing is stored', async () => {
    const before = store.participants('origin-study').length;
    for (const [method, path, body] of [
      ['GET', '/api/study/origin-study', undefined],
      ['POST', '/api/study/origin-study/session', JSON.stringify({ consent: true })],
      ['GET', '/', undefined],
      ['POST', '/api/llm/chat', chat],
    ] as const) {
      const r = await send(method, path, { ...json, ...as('attacker.example') }, body);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(JSON.parse(r.text)).toEqual({
        error: {
          kind: 'forbidden',
          message: `this server does not answer to the host 'attacker.example:${running.port}'; it answers to localhost, 127.0.0.1, [::1], study.example.org (a deployment adds its names with HILLMIND_HOSTS)`,
        },
      });
    }
    expect(store.participants('origin-study')).toHaveLength(before);
  });
});
