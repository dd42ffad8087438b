/**
 * The LLM proxy the page talks to (POST /api/llm, GET /api/llm/status), mounted on the
 * product's node:http server, forwarding to the OpenAI-compatible test server: it answers,
 * validates, bounds size and rate, maps failures, and never lets the key out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatError, ProxyChatClient, buildRequest, fetchLlmStatus, proxyLlmAccess } from '../../src/llm';
import { runMatch } from '../../src/match';
import { nodeLlmAccess } from '../../src/llm/node';
import { parseLlmSpec } from '../../src/llm/settings';
import { type LlmProxyOptions, llmProxyRoutes } from '../../src/server/llmProxy';
import { type RunningServer, createAppServer, listen } from '../../src/server/server';
import { createWorld, teamSituation } from '../../src/sim';
import { createPlatform, llmStrategistOf } from '../../src/teams';
import { FakeOpenAiServer } from './fakeOpenAiServer';

const KEY = 'sk-proxy-secret-4b1d';
const root = mkdtempSync(join(tmpdir(), 'hillmind-proxy-'));
let fake: FakeOpenAiServer;
const servers: RunningServer[] = [];
/** Every response body and header the proxy sent, to search for the key. */
const seen: string[] = [];

async function proxy(env: Record<string, string>, options: Omit<LlmProxyOptions, 'access'> = {}): Promise<string> {
  const running = await listen(createAppServer({ root, routes: [llmProxyRoutes({ access: nodeLlmAccess({ spec: parseLlmSpec(env) }), ...options })] }), 0);
  servers.push(running);
  return `http://127.0.0.1:${running.port}`;
}

const configured = () => ({ OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: KEY, LLM_MODEL: 'fake-gemma', LLM_TIMEOUT_MS: '300', LLM_SKILLS: 'scripted' });

async function call(base: string, body: unknown, init: RequestInit = {}): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${base}/api/llm`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body), ...init });
  const text = await res.text();
  seen.push(text, JSON.stringify([...res.headers]));
  return { status: res.status, json: JSON.parse(text) as Record<string, unknown>, headers: res.headers };
}

const request = () => buildRequest(teamSituation(createWorld(1), 0), ['navigate', 'navigate'], { format: 'compact', temperature: 0.1 });

beforeAll(async () => {
  fake = await FakeOpenAiServer.start();
});

afterAll(async () => {
  // No response of the proxy ever carried the key.
  expect(seen.length).toBeGreaterThan(10);
  for (const text of seen) expect(text).not.toContain(KEY);
  await Promise.all(servers.map((s) => s.close()));
  await fake.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the LLM proxy', () => {
  it('reports its status without the key, and how to configure one when there is none', async () => {
    const base = await proxy(configured());
    const status = await fetchLlmStatus(`${base}/api/llm/status`);
    seen.push(JSON.stringify(status));
    expect(status).toMatchObject({ configured: true, model: 'fake-gemma', keySet: true, format: 'compact', temperature: 0.1, rateHz: 2 });
    expect(status.baseUrl).toBe(fake.url);

    // No server, and no local model pulled where this one looks.
    const bare = await proxy({ HILLMIND_LLM_DIR: join(root, 'no-models') });
    const none = await fetchLlmStatus(`${bare}/api/llm/status`);
    expect(none.configured).toBe(false);
    expect(none.help).toContain('OPENAI_BASE_URL=http://localhost:11434/v1 LLM_MODEL=gemma3:27b');
    expect(none.help).toMatch(/vLLM[\s\S]*llama\.cpp/);
    const refused = await call(bare, request());
    expect(refused.status).toBe(503);
    expect(refused.json.error).toMatchObject({ kind: 'unavailable' });
  });

  it('forwards a valid request with the server key and model; the page client reads the answer', async () => {
    const base = await proxy(configured());
    fake.behaviour = { kind: 'answer' };
    fake.calls.length = 0;
    const client = new ProxyChatClient({ endpoint: `${base}/api/llm`, model: 'fake-gemma' });
    const answer = await client.complete(request(), new AbortController().signal);
    expect(answer.text).toMatch(/^\d,\d$/);
    expect(answer.promptTokens).toBeGreaterThan(50);
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(fake.calls[0]!.body).toMatchObject({ model: 'fake-gemma', temperature: 0.1, max_tokens: 16 });
  });

  it('plays a whole match through the proxy, as the page does', async () => {
    // Lockstep runs faster than play at 1x: lift the per-client rate bound for this one.
    const base = await proxy({ ...configured(), LLM_TIMEOUT_MS: '5000' }, { rate: { perSecond: 1000, burst: 1000 } });
    fake.behaviour = { kind: 'answer' };
    const llm = proxyLlmAccess({ endpoint: `${base}/api/llm`, statusEndpoint: `${base}/api/llm/status`, timing: { kind: 'lockstep' } });
    const platform = createPlatform({ llm });
    const match = await runMatch({ blue: 'llm', red: 'heuristic', seed: 4, config: { ...createWorld(0).config, episodeSeconds: 8 } }, { platform });
    const strategist = llmStrategistOf(match.controllers[0])!;
    expect(strategist.timeoutMs).toBe(5000);
    expect(strategist.stats()).toMatchObject({ failed: 0 });
    expect(strategist.stats().answers).toBeGreaterThan(5);
    expect(match.replay().decisions.some((d) => d.source === 'llm')).toBe(true);
  });

  it("sends a json request to the model that answers json (the local model alone where its adapter was taught compact)", async () => {
    const compact = nodeLlmAccess({ spec: parseLlmSpec({ ...configured(), LLM_MODEL: 'taught-compact' }) });
    const json = nodeLlmAccess({ spec: parseLlmSpec({ ...configured(), LLM_MODEL: 'alone' }) });
    const asked: unknown[] = [];
    const access = { ...compact, withModel: (choice: unknown) => (asked.push(choice), json), close: async () => void (await Promise.all([compact.close(), json.close()])) };
    const running = await listen(createAppServer({ root, routes: [llmProxyRoutes({ access })] }), 0);
    servers.push(running);
    const base = `http://127.0.0.1:${running.port}`;
    fake.behaviour = { kind: 'answer' };
    fake.calls.length = 0;
    const situation = teamSituation(createWorld(1), 0);
    expect((await call(base, buildRequest(situation, ['navigate', 'navigate'], { format: 'json', temperature: 0.1 }))).status).toBe(200);
    expect((await call(base, request())).status).toBe(200);
    expect(fake.calls.map((c) => (c.body as { model: string }).model)).toEqual(['alone', 'taught-compact']);
    expect(asked).toEqual([{ format: 'json' }]);
  });

  it('rejects malformed, oversized and unexpected requests', async () => {
    const base = await proxy(configured());
    expect((await call(base, '{not json')).status).toBe(400);
    expect((await call(base, { messages: [] , temperature: 0.1 })).status).toBe(400);
    expect((await call(base, { ...request(), model: 'gpt-expensive' })).status).toBe(400);
    expect((await call(base, { ...request(), temperature: 5 })).status).toBe(400);
    const bad = await call(base, { messages: [{ role: 'tool', content: 'x' }], temperature: 0.1 });
    expect(bad.status).toBe(400);
    expect(String((bad.json.error as { message: string }).message)).toMatch(/messages\.0\.role/);
    const big = await call(base, { messages: [{ role: 'user', content: 'x'.repeat(33 * 1024) }], temperature: 0.1 });
    expect(big.status).toBe(413);
  });

  it('limits the rate per client, with Retry-After', async () => {
    const base = await proxy(configured(), { rate: { perSecond: 0.5, burst: 2 } });
    fake.behaviour = { kind: 'answer' };
    expect((await call(base, request())).status).toBe(200);
    expect((await call(base, request())).status).toBe(200);
    const limited = await call(base, request());
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const client = new ProxyChatClient({ endpoint: `${base}/api/llm` });
    await expect(client.complete(request(), new AbortController().signal)).rejects.toMatchObject({ kind: 'rate-limit' });
  });

  it('maps the model server failures to kinds the strategist counts', async () => {
    const base = await proxy(configured());
    const client = new ProxyChatClient({ endpoint: `${base}/api/llm` });
    const kindOf = async () => {
      try {
        await client.complete(request(), new AbortController().signal);
        return 'ok';
      } catch (err) {
        seen.push((err as Error).message);
        return err instanceof ChatError ? { kind: err.kind, status: err.status, retryAfterMs: err.retryAfterMs } : String(err);
      }
    };
    fake.behaviour = { kind: 'status', status: 500 };
    expect(await kindOf()).toMatchObject({ kind: 'server', status: 502 });
    fake.behaviour = { kind: 'status', status: 429, retryAfter: '3' };
    expect(await kindOf()).toMatchObject({ kind: 'rate-limit', status: 429, retryAfterMs: 3000 });
    fake.behaviour = { kind: 'reset' };
    expect(await kindOf()).toMatchObject({ kind: 'network', status: 502 });
    fake.behaviour = { kind: 'hang' };
    expect(await kindOf()).toMatchObject({ kind: 'timeout', status: 504 });
    // An upstream error that quotes the key is passed on without it.
    fake.behaviour = { kind: 'status', status: 401, message: `Incorrect API key provided: ${KEY}` };
    const auth = await call(base, request());
    expect(auth.status).toBe(502);
    expect(String((auth.json.error as { message: string }).message)).toMatch(/check OPENAI_API_KEY/);
    fake.behaviour = { kind: 'status', status: 418, message: `teapot says ${KEY}` };
    const other = await call(base, request());
    expect(String((other.json.error as { message: string }).message)).toContain('[key]');
  });

  it('stops waiting for the model when the page gives up', async () => {
    const base = await proxy(configured());
    fake.behaviour = { kind: 'hang' };
    const client = new ProxyChatClient({ endpoint: `${base}/api/llm` });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    await expect(client.complete(request(), abort.signal)).rejects.toMatchObject({ kind: 'aborted' });
  });
});
