/**
 * The proxy's decision cache: a request the model answers the same every time is answered
 * the second time without the model, from memory and, after a restart, from disk; another
 * model or adapter misses; the bound holds; a damaged file neither crashes the server nor
 * loses its readable answers; the status reports the hit rate. A stand-in model counts its
 * calls and answers each one differently, so an answer from the cache is told apart.
 */
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ChatClient, type ChatRequest, type ChatResponse, type LlmStatus, STRATEGIST_DEFAULTS, buildRequest, cacheLine } from '../../src/llm';
import { CACHE_FILE_NAME } from '../../src/llm/node/fileCache';
import { PROXY_CACHE_FOLDER, ProxyDecisionCache } from '../../src/server/llmProxyCache';
import { createWorld, teamSituation } from '../../src/sim';
import { proxyServers } from '../helpers/proxyServers';

const servers = proxyServers('proxy-cache');

/** A model that counts its calls and answers each one differently ("1,1", "1,2", ...). */
class CountingModel implements ChatClient {
  calls = 0;
  constructor(
    readonly model: string,
    readonly answerIdentity?: string,
    /** Whether it answers the same every time at any temperature (the local engine's scored answers). */
    private readonly scored = false,
  ) {}

  answersAlike(request: ChatRequest): boolean {
    return request.temperature === 0 || this.scored;
  }

  async complete(): Promise<ChatResponse> {
    this.calls++;
    return { text: `1,${this.calls}`, promptTokens: 600, completionTokens: 3, model: this.model };
  }
}

let folders = 0;
const newFolder = () => join(servers.root, `cache-${folders++}`);

function serve(client: ChatClient, cache: ProxyDecisionCache): Promise<string> {
  return servers.serve({ client, provider: 'counting', settings: STRATEGIST_DEFAULTS, cache: null }, { cache });
}

async function ask(base: string, request: ChatRequest): Promise<{ text: string; cached?: boolean }> {
  const res = await fetch(`${base}/api/llm`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
  expect(res.status).toBe(200);
  return (await res.json()) as { text: string; cached?: boolean };
}

async function status(base: string): Promise<LlmStatus> {
  return (await (await fetch(`${base}/api/llm/status`)).json()) as LlmStatus;
}

/** A decision as the page asks for it; another situation is another state's words. */
function decision(situation = 0, temperature = 0): ChatRequest {
  const request = buildRequest(teamSituation(createWorld(1), 0), ['navigate', 'navigate'], { format: 'compact', temperature });
  const last = request.messages.length - 1;
  return { ...request, messages: request.messages.map((m, i) => (i === last && situation > 0 ? { ...m, content: `${m.content}\nSituation ${situation}.` } : m)) };
}

describe('the proxy decision cache', () => {
  it('answers a request it has seen without the model, the same answer to the bit, and reports its hit rate', async () => {
    const model = new CountingModel('gemma', 'local gemma sha256:aa adapter@11');
    const base = await serve(model, ProxyDecisionCache.open({ mode: 'use', dir: newFolder() }));
    const first = await ask(base, decision());
    const second = await ask(base, decision());
    expect(model.calls).toBe(1);
    expect(second).toMatchObject({ text: first.text, cached: true });
    expect(first.cached).toBeUndefined();
    const now = await status(base);
    expect(now.cache).toMatchObject({ mode: 'use', entries: 1, hits: 1, misses: 1, hitRate: 0.5 });
    // The line the study's progress page shows.
    expect(cacheLine(now)).toBe('Decision cache (use): 50.0% of 2 decisions it could answer answered from it since the server started · 1 of 20000 answers kept.');
  });

  it('serves a sampled answer never, and a scored one at any temperature', async () => {
    const sampled = new CountingModel('server-model');
    const base = await serve(sampled, ProxyDecisionCache.open({ mode: 'use', dir: newFolder() }));
    const a = await ask(base, decision(0, 0.1));
    const b = await ask(base, decision(0, 0.1));
    expect(sampled.calls).toBe(2);
    expect(b.text).not.toBe(a.text);
    // Not even counted: the cache could not have answered it.
    expect((await status(base)).cache).toMatchObject({ entries: 0, hits: 0, misses: 0, hitRate: null });

    const scored = new CountingModel('gemma', 'local gemma scores', true);
    const scoredBase = await serve(scored, ProxyDecisionCache.open({ mode: 'use', dir: newFolder() }));
    await ask(scoredBase, decision(0, 0.1));
    expect((await ask(scoredBase, decision(0, 0.1))).cached).toBe(true);
    expect(scored.calls).toBe(1);
  });

  it('keeps its answers across a restart, and another adapter digest or model misses them', async () => {
    const dir = newFolder();
    const before = new CountingModel('gemma', 'local gemma sha256:aa adapter@11');
    const text = (await ask(await serve(before, ProxyDecisionCache.open({ mode: 'use', dir })), decision())).text;

    // A new server on the same folder: answered from disk, the model never asked.
    const after = new CountingModel('gemma', 'local gemma sha256:aa adapter@11');
    expect(await ask(await serve(after, ProxyDecisionCache.open({ mode: 'use', dir })), decision())).toEqual(expect.objectContaining({ text, cached: true }));
    expect(after.calls).toBe(0);

    const retuned = new CountingModel('gemma', 'local gemma sha256:aa adapter@22');
    expect((await ask(await serve(retuned, ProxyDecisionCache.open({ mode: 'use', dir })), decision())).cached).toBeUndefined();
    expect(retuned.calls).toBe(1);
    const otherModel = new CountingModel('smollm', 'local smollm sha256:bb');
    expect((await ask(await serve(otherModel, ProxyDecisionCache.open({ mode: 'use', dir })), decision())).cached).toBeUndefined();
    expect(otherModel.calls).toBe(1);
    // A server's model without an identity of its own is told apart by its name.
    const served = new CountingModel('gemma3:27b');
    await ask(await serve(served, ProxyDecisionCache.open({ mode: 'use', dir })), decision());
    expect(served.calls).toBe(1);
  });

  it('holds at most its bound, forgetting the least recently used, in memory and after a restart', async () => {
    const dir = newFolder();
    const model = new CountingModel('gemma', 'bounded');
    const base = await serve(model, ProxyDecisionCache.open({ mode: 'use', dir, maxEntries: 2 }));
    for (const situation of [0, 1, 0, 2]) await ask(base, decision(situation));
    // 0 was used after 1, so 1 is the one forgotten.
    expect(model.calls).toBe(3);
    expect((await status(base)).cache).toMatchObject({ entries: 2, maxEntries: 2 });
    await ask(base, decision(1));
    expect(model.calls).toBe(4);

    const lines = readFileSync(join(dir, PROXY_CACHE_FOLDER, CACHE_FILE_NAME), 'utf8').trim().split('\n');
    expect(lines.length).toBeLessThanOrEqual(4);
    const restarted = ProxyDecisionCache.open({ mode: 'use', dir, maxEntries: 2 });
    expect(restarted.status().entries).toBe(2);
    expect(readFileSync(join(dir, PROXY_CACHE_FOLDER, CACHE_FILE_NAME), 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('sets a damaged file\'s unreadable lines aside, keeps the rest, and reports them', async () => {
    const dir = newFolder();
    const model = new CountingModel('gemma', 'damaged');
    const text = (await ask(await serve(model, ProxyDecisionCache.open({ mode: 'use', dir })), decision())).text;
    const file = join(dir, PROXY_CACHE_FOLDER, CACHE_FILE_NAME);
    writeFileSync(file, `\u0000\u0001garbage\n${readFileSync(file, 'utf8')}{"key":"cut off mid-wr`);

    const cache = ProxyDecisionCache.open({ mode: 'use', dir });
    const base = await serve(model, cache);
    const now = await status(base);
    expect(now.cache).toMatchObject({ entries: 1, damagedLines: 2 });
    expect(cacheLine(now)).toContain('2 unreadable lines set aside at start');
    expect(await ask(base, decision())).toEqual(expect.objectContaining({ text, cached: true }));
    expect(readFileSync(`${file}.damaged`, 'utf8')).toContain('garbage');
    expect(readFileSync(file, 'utf8')).not.toContain('garbage');
    // What is appended now is read back whole.
    await ask(base, decision(1));
    expect(ProxyDecisionCache.open({ mode: 'use', dir }).status()).toMatchObject({ entries: 2 });
    expect(ProxyDecisionCache.open({ mode: 'use', dir }).status().damagedLines).toBeUndefined();
    // Damaged again: what was set aside the first time is kept beside the new.
    writeFileSync(file, `${readFileSync(file, 'utf8')}more garbage\n`);
    ProxyDecisionCache.open({ mode: 'use', dir });
    expect(readFileSync(`${file}.damaged`, 'utf8')).toMatch(/garbage[\s\S]*more garbage/);
  });

  it('a cache file that cannot be read leaves the server answering from the model, and says why', async () => {
    const dir = newFolder();
    // A folder where the file should be: not a file at all.
    mkdirSync(join(dir, PROXY_CACHE_FOLDER, CACHE_FILE_NAME), { recursive: true });
    const model = new CountingModel('gemma', 'unreadable');
    const base = await serve(model, ProxyDecisionCache.open({ mode: 'use', dir }));
    await ask(base, decision());
    await ask(base, decision());
    expect(model.calls).toBe(2);
    const now = await status(base);
    const cache = now.cache;
    expect(cache?.problem).toMatch(/decisions\.jsonl cannot be read .*move it away/);
    expect(cacheLine(now)).toMatch(/^Decision cache: none, the decision cache .* cannot be read/);
    expect(cache).toMatchObject({ entries: 0, hits: 0 });
  });

  it('LLM_CACHE decides: refresh keeps answers but never serves them, off keeps nothing', async () => {
    const dir = newFolder();
    const model = new CountingModel('gemma', 'modes');
    const refresh = await serve(model, ProxyDecisionCache.open({ mode: 'refresh', dir }));
    await ask(refresh, decision());
    const again = await ask(refresh, decision());
    expect(model.calls).toBe(2);
    expect(again.text).toBe('1,2');
    // The refreshed answer is the one kept.
    expect(await ask(await serve(model, ProxyDecisionCache.open({ mode: 'use', dir })), decision())).toMatchObject({ text: '1,2', cached: true });

    const offDir = newFolder();
    await ask(await serve(model, ProxyDecisionCache.open({ mode: 'off', dir: offDir })), decision());
    expect(existsSync(join(offDir, PROXY_CACHE_FOLDER))).toBe(false);
  });
});

describe("the proxy decision cache's file, one process's at a time", () => {
  const lockOf = (dir: string) => join(dir, PROXY_CACHE_FOLDER, `${CACHE_FILE_NAME}.lock`);
  /** A pid that ran and has ended. */
  const endedPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

  it('is refused while another live process holds it, saying which, and kept nothing meanwhile', () => {
    const dir = newFolder();
    mkdirSync(join(dir, PROXY_CACHE_FOLDER), { recursive: true });
    // The parent of this test process runs as long as it does.
    const held = `${JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: '2026-12-07T00:00:00.000Z' })}\n`;
    writeFileSync(lockOf(dir), held);
    const cache = ProxyDecisionCache.open({ mode: 'use', dir });
    expect(cache.status()).toMatchObject({ entries: 0, problem: expect.stringMatching(new RegExp(`is in use by process ${process.ppid} on ${hostname()} \\(a server, or npm run llm:warm\\): stop it first`)) });
    expect(readFileSync(lockOf(dir), 'utf8')).toBe(held);
  });

  it('is taken over from a process that has ended, and let go on close', () => {
    const dir = newFolder();
    mkdirSync(join(dir, PROXY_CACHE_FOLDER), { recursive: true });
    writeFileSync(lockOf(dir), JSON.stringify({ pid: endedPid(), host: hostname(), startedAt: '2026-12-07T00:00:00.000Z' }));
    const cache = ProxyDecisionCache.open({ mode: 'use', dir });
    expect(cache.status().problem).toBeUndefined();
    expect(JSON.parse(readFileSync(lockOf(dir), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    // Opened again by this process (a restarted server in one process): still this process's.
    expect(ProxyDecisionCache.open({ mode: 'use', dir }).status().problem).toBeUndefined();
    cache.close();
    expect(existsSync(lockOf(dir))).toBe(false);
  });
});
