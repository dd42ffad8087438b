/**
 * Warming the proxy's decision cache (server/llmProxyWarmup.ts, npm run llm:warm): the
 * model's answers in lockstep games of the llm team go into the cache the server reads, so a
 * page asking a situation those games met is answered from it, without the model; warming
 * the same games again asks the model nothing.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ChatClient, type ChatRequest, type ChatResponse, type LlmConnection, RuleChatClient, strategistSettingsOf } from '../../src/llm';
import { ProxyDecisionCache } from '../../src/server/llmProxyCache';
import { warmProxyCache } from '../../src/server/llmProxyWarmup';
import { TEST_PLATFORM } from '../helpers/platform';
import { proxyServers } from '../helpers/proxyServers';

const servers = proxyServers('proxy-warmup');

/** The rule client as a model whose answers are always the same, counting and recording what it is asked. */
class RecordingModel implements ChatClient {
  readonly model = 'rules';
  readonly answerIdentity = 'rules, scored';
  readonly asked: ChatRequest[] = [];
  private readonly rules = new RuleChatClient();

  answersAlike(): boolean {
    return true;
  }

  complete(request: ChatRequest): Promise<ChatResponse> {
    this.asked.push(request);
    return this.rules.complete(request);
  }
}

const connectionOf = (client: ChatClient): LlmConnection => ({ client, provider: 'rules', settings: strategistSettingsOf({ format: 'terse', skills: 'scripted' }), cache: null });

describe('warming the proxy decision cache', () => {
  it("fills the server's cache with the model's answers, which a page's request then gets without the model", async () => {
    const dir = join(servers.root, 'warm');
    const model = new RecordingModel();
    const warmed = await warmProxyCache(TEST_PLATFORM, connectionOf(model), ProxyDecisionCache.open({ mode: 'use', dir }), { games: 2, seed: 11 });
    expect(warmed.asked).toBe(model.asked.length + warmed.known);
    expect(warmed.asked).toBeGreaterThan(50);
    const distinct = new Set(model.asked.map((r) => JSON.stringify(r.messages))).size;
    expect(distinct).toBe(model.asked.length);
    // The server starts on the warmed folder: a situation of those games is answered from it.
    const server = new RecordingModel();
    const base = await servers.serve(connectionOf(server), { cache: ProxyDecisionCache.open({ mode: 'use', dir }) });
    const page = model.asked[model.asked.length - 1]!;
    const res = await fetch(`${base}/api/llm`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(page) });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { text: string; cached?: boolean };
    expect(answer).toMatchObject({ cached: true, text: (await new RuleChatClient().complete(page)).text });
    expect(server.asked).toHaveLength(0);
  }, 60_000);

  it('asks the model nothing for games it warmed before, and something for new ones', async () => {
    const dir = join(servers.root, 'again');
    const first = new RecordingModel();
    await warmProxyCache(TEST_PLATFORM, connectionOf(first), ProxyDecisionCache.open({ mode: 'use', dir }), { games: 1, seed: 21 });
    const again = new RecordingModel();
    const games: [number, number, number][] = [];
    const rerun = await warmProxyCache(TEST_PLATFORM, connectionOf(again), ProxyDecisionCache.open({ mode: 'use', dir }), { games: 1, seed: 21, onGame: (...g) => games.push(g) });
    expect(again.asked).toHaveLength(0);
    expect(rerun.known).toBe(rerun.asked);
    expect(games).toEqual([[1, rerun.asked, rerun.asked]]);
    const other = await warmProxyCache(TEST_PLATFORM, connectionOf(again), ProxyDecisionCache.open({ mode: 'use', dir }), { games: 1, seed: 22 });
    expect(again.asked.length).toBe(other.asked - other.known);
    expect(again.asked.length).toBeGreaterThan(0);
  }, 60_000);
});
