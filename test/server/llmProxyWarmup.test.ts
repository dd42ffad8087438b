/**
 * Warming the proxy's decision cache (server/llmProxyWarmup.ts, npm run llm:warm): the
 * model's answers in lockstep games of the llm team go into the cache the server reads, so a
 * page asking a situation those games met is answered from it, without the model; warming
 * the same games again asks the model nothing.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ChatClient, type ChatRequest, type ChatResponse, type LlmConnection, RuleChatClient, proxyLlmAccess, strategistSettingsOf } from '../../src/llm';
import { runMatch } from '../../src/match';
import { createPlatform } from '../../src/teams';
import { ProxyDecisionCache } from '../../src/server/llmProxyCache';
import { studyWarmup, warmProxyCache } from '../../src/server/llmProxyWarmup';
import { parseStudyConfig } from '../../src/survey/config';
import { personaByName } from '../../src/teams/personas';
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

// The server's settings, with an answer bound of its own (LLM_MAX_TOKENS), which pages never hear of.
const connectionOf = (client: ChatClient): LlmConnection => ({ client, provider: 'rules', settings: strategistSettingsOf({ format: 'terse', skills: 'scripted', maxTokens: 12 }), cache: null });

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

  it('has the addresses of the requests a page makes: a page replaying a warmed game through the proxy costs the model nothing', async () => {
    const dir = join(servers.root, 'page');
    await warmProxyCache(TEST_PLATFORM, connectionOf(new RecordingModel()), ProxyDecisionCache.open({ mode: 'use', dir }), { games: 1, seed: 31 });
    const server = new RecordingModel();
    // A page in lockstep asks as fast as it is answered: past the per-client rate a busy page would never reach.
    const base = await servers.serve(connectionOf(server), { cache: ProxyDecisionCache.open({ mode: 'use', dir }), rate: { perSecond: 100_000, burst: 100_000 } });
    // The page's strategist: its settings from the server's status, its requests through the proxy.
    let asked = 0;
    const counting = (url: string, init?: RequestInit) => {
      if (init?.method === 'POST') asked++;
      return fetch(url, init);
    };
    const page = createPlatform({ models: TEST_PLATFORM.models, llm: proxyLlmAccess({ endpoint: `${base}/api/llm`, statusEndpoint: `${base}/api/llm/status`, timing: { kind: 'lockstep' }, fetch: counting }) });
    try {
      await runMatch({ blue: 'llm', red: 'bt', seed: 31 }, { platform: page, record: false });
    } finally {
      await page.close();
    }
    expect(asked).toBeGreaterThan(100);
    expect(server.asked.map((r) => r.messages.at(-1)!.content)).toEqual([]);
  }, 60_000);

  it('refuses to warm where the server would keep none of the answers (samples), before playing', async () => {
    const sampling = new RecordingModel();
    sampling.answersAlike = () => false;
    await expect(warmProxyCache(TEST_PLATFORM, connectionOf(sampling), ProxyDecisionCache.open({ mode: 'use', dir: join(servers.root, 'samples') }), { games: 1, seed: 41 })).rejects.toThrow(
      /the model's answers in the terse format at temperature 0\.1 are samples, which the server's cache never keeps, so warming would keep nothing: set LLM_TEMPERATURE=0/,
    );
    expect(sampling.asked).toHaveLength(0);
  });

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

  it("warms a study's game and its llm variants: the episode length and the persona its prompts state", async () => {
    const model = new RecordingModel();
    const study = await studyWarmup(parseStudyConfig({ teams: ['llm:persona=cautious', 'bt', 'flat'], episodeSeconds: 40 }), TEST_PLATFORM);
    expect(study.teams).toEqual(['llm:persona=cautious']);
    expect(study.config.episodeSeconds).toBe(40);
    await warmProxyCache(TEST_PLATFORM, connectionOf(model), ProxyDecisionCache.open({ mode: 'use', dir: join(servers.root, 'study') }), { games: 1, seed: 51, ...study });
    const system = model.asked[0]!.messages[0]!.content;
    expect(system).toContain('After 40 s without a winner the game is a draw.');
    expect(system).toContain(personaByName('cautious')!.prompt);
    await expect(studyWarmup(parseStudyConfig({ teams: ['bt', 'flat'] }), TEST_PLATFORM)).rejects.toThrow(/the study has no team that asks the server's model \(bt, flat/);
  }, 60_000);

  it("counts a variant asking the server's model in another format as the server's, and one naming another model as not", async () => {
    const { nodeLlmAccess } = await import('../../src/llm/node');
    const { parseLlmSpec } = await import('../../src/llm');
    const platform = createPlatform({ llm: nodeLlmAccess({ spec: parseLlmSpec({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', LLM_MODEL: 'm', LLM_SKILLS: 'scripted' }) }) });
    const study = await studyWarmup(parseStudyConfig({ teams: ['llm:format=json', 'llm:model=other', 'bt'] }), platform);
    expect(study.teams).toEqual(['llm:format=json']);
    await platform.close();
  });
});
