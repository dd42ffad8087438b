/**
 * A model server that never answers, where the match waits for answers (lockstep): after
 * LLM_MAX_TIMEOUTS calls in a row time out (default 3), the match stops with an error naming
 * the server, or, with LLM_ON_SILENCE=continue, plays on without the model. Before, every
 * call waited out its timeout (60 s by default) and the match went on asking: an hour a match.
 *
 * The fake server hangs; a 50 ms timeout keeps the test short. Calls are counted, never timed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmSilent, MAX_TIMEOUTS_IN_ROW } from '../../src/llm';
import { nodeLlmAccess } from '../../src/llm/node';
import { parseLlmSpec } from '../../src/llm/settings';
import { Match } from '../../src/match';
import { DEFAULT_CONFIG } from '../../src/sim';
import { createPlatform, llmStrategistOf } from '../../src/teams';
import { FakeOpenAiServer } from './fakeOpenAiServer';

let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await FakeOpenAiServer.start({ behaviour: { kind: 'hang' } });
});
afterAll(async () => {
  await server?.close();
});

/**
 * Blue `llm` against a server that never answers, to the end of a 30 s match or to its
 * error. `calls`: the calls the strategist sent (the server may not see one the 50 ms
 * timeout aborted before it connected).
 */
async function againstSilence(env: Record<string, string> = {}, waitForModel = false) {
  server.calls.length = 0;
  const settings = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-test', LLM_MODEL: 'fake-gemma', LLM_TIMING: 'lockstep', LLM_TIMEOUT_MS: '50', LLM_CACHE: 'off', LLM_SKILLS: 'scripted', ...env };
  const platform = createPlatform({ llm: nodeLlmAccess({ spec: parseLlmSpec(settings) }) });
  const match = await Match.create({ blue: 'llm', red: 'bt-scripted', seed: 1, config: { ...DEFAULT_CONFIG, episodeSeconds: 30 } }, { platform });
  const strategist = llmStrategistOf(match.controllers[0])!;
  if (waitForModel) strategist.setWaiting(true);
  let error: Error | null = null;
  try {
    while (!match.done) await match.advance();
  } catch (err) {
    error = err as Error;
  } finally {
    strategist.close();
    await platform.close();
  }
  const stats = strategist.stats();
  expect(server.calls.length).toBeLessThanOrEqual(stats.calls);
  return { match, stats, error, calls: stats.calls };
}

describe('a lockstep match against a model server that never answers', () => {
  it(`stops after ${MAX_TIMEOUTS_IN_ROW} timeouts in a row, naming the model and the server, and how to play on`, async () => {
    const { error, calls } = await againstSilence();
    expect(calls).toBe(MAX_TIMEOUTS_IN_ROW);
    expect(error).toBeInstanceOf(LlmSilent);
    expect(error!.message).toContain(`the language model fake-gemma (openai-compatible ${server.url}) did not answer 3 calls in a row, each given 50 ms`);
    expect(error!.message).toContain('LLM_ON_SILENCE=continue');
  });

  it('LLM_MAX_TIMEOUTS sets how many: 5 stops after 5 calls; 0 never stops (the match asks on to its end)', async () => {
    expect((await againstSilence({ LLM_MAX_TIMEOUTS: '5' })).calls).toBe(5);
    const never = await againstSilence({ LLM_MAX_TIMEOUTS: '0' });
    expect(never.error).toBe(null);
    expect(never.match.done).toBe(true);
    expect(never.calls).toBeGreaterThan(5);
    expect(never.stats!.failures.timeout).toBe(never.calls);
  });

  it('LLM_ON_SILENCE=continue plays the match to its end without the model, after the same 3 calls', async () => {
    const { match, stats, error, calls } = await againstSilence({ LLM_ON_SILENCE: 'continue' });
    expect(error).toBe(null);
    expect(match.done).toBe(true);
    expect(calls).toBe(MAX_TIMEOUTS_IN_ROW);
    expect(stats).toMatchObject({ calls: 3, answers: 0, failures: { timeout: 3 } });
  });

  it("where a match that does not wait holds for the model only because the page's person asked, a silent model never stops it", async () => {
    const { match, error, calls, stats } = await againstSilence({ LLM_TIMING: 'realtime' }, true);
    expect(error).toBe(null);
    expect(match.done).toBe(true);
    expect(calls).toBeGreaterThan(MAX_TIMEOUTS_IN_ROW);
    expect(stats!.failures.timeout).toBe(calls);
  });

  it('where the match does not wait (realtime), a silent model never stops it', async () => {
    const { match, error, calls } = await againstSilence({ LLM_TIMING: 'realtime' });
    expect(error).toBe(null);
    expect(match.done).toBe(true);
    expect(calls).toBeGreaterThan(MAX_TIMEOUTS_IN_ROW);
  });

  it('bad values of the settings are refused, naming them', () => {
    const spec = parseLlmSpec({ OPENAI_BASE_URL: server.url, LLM_MODEL: 'm', LLM_MAX_TIMEOUTS: '-1', LLM_ON_SILENCE: 'shrug' });
    expect(spec.asking.ok).toBe(false);
    const issues = spec.asking.ok ? [] : spec.asking.issues.join('; ');
    expect(issues).toContain('LLM_MAX_TIMEOUTS must be between 0 and 1000');
    expect(issues).toContain('LLM_ON_SILENCE must be one of stop, continue');
  });
});
