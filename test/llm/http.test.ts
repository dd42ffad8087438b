/**
 * The strategist over real HTTP, through the openai SDK, against the OpenAI-compatible test
 * server: every match completes, whatever the server does, and the counters are right.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FailureKind, latencyTicks } from '../../src/llm';
import { runMatch } from '../../src/match';
import { DEFAULT_CONFIG, type GameConfig } from '../../src/sim';
import { nodeLlmAccess } from '../../src/llm/node';
import { parseLlmSpec } from '../../src/llm/settings';
import { type TimedDecision, createPlatform, llmStrategistOf } from '../../src/teams';
import { type BehaviourFor, type FakeBehaviour, FakeOpenAiServer } from './fakeOpenAiServer';

const KEY = 'sk-test-0123456789';

let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await FakeOpenAiServer.start();
});
afterAll(async () => {
  await server?.close();
});

interface Run {
  readonly env?: Record<string, string>;
  readonly behaviour: BehaviourFor;
  readonly timing?: string;
  readonly config?: GameConfig;
  readonly seed?: number;
  readonly fake?: FakeOpenAiServer;
}

/** Blue `llm` (settings from an environment, as in a shell) against bt-scripted, to the end. */
async function play(run: Run) {
  const fake = run.fake ?? server;
  fake.calls.length = 0;
  fake.behaviour = run.behaviour;
  const env = { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: KEY, LLM_MODEL: 'fake-gemma', LLM_TIMING: run.timing ?? 'lockstep', LLM_CACHE: 'off', LLM_SKILLS: 'scripted', ...run.env };
  const platform = createPlatform({ llm: nodeLlmAccess({ spec: parseLlmSpec(env) }) });
  const match = await runMatch({ blue: 'llm', red: 'bt-scripted', seed: run.seed ?? 1, ...(run.config ? { config: run.config } : {}) }, { platform });
  const strategist = llmStrategistOf(match.controllers[0])!;
  return { match, strategist, stats: strategist.stats(), calls: [...fake.calls] };
}

const short = (seconds: number): GameConfig => ({ ...DEFAULT_CONFIG, episodeSeconds: seconds });

/** The failure kind a behaviour must be counted as (null: a valid answer). */
function expectedKind(b: FakeBehaviour): FailureKind | null {
  switch (b.kind) {
    case 'hang':
      return 'timeout';
    case 'reset':
      return 'network';
    case 'bad-body':
      return 'server';
    case 'status':
      return b.status === 429 ? 'rate-limit' : b.status >= 500 ? 'server' : 'http';
    case 'answer':
      if (b.text === undefined) return null;
      if (b.text.trim() === '') return 'empty';
      if (b.text === '1,3,2') return 'wrong-count';
      if (b.text === '1,9') return 'unknown-skill';
      return 'unparsable';
  }
}

describe('the llm team over HTTP', () => {
  it('answers well: decisions apply, requests follow the settings, tokens and latency are counted', async () => {
    const { match, stats, calls } = await play({ behaviour: { kind: 'answer' }, config: short(12) });
    expect(match.done).toBe(true);
    expect(stats).toMatchObject({ calls: calls.length, requests: calls.length, answers: calls.length, applied: calls.length, failed: 0, abandoned: 0 });
    expect(calls.length).toBeGreaterThan(10);
    const body = calls[0]!.body;
    expect(body).toMatchObject({ model: 'fake-gemma', temperature: 0.1, max_tokens: 16 });
    expect(body.response_format).toBeUndefined();
    expect((body.messages as { role: string }[]).map((m) => m.role)).toEqual(['system', 'user']);
    expect(calls[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    // Token counts are the server's usage, summed.
    const usage = calls.map((c) => (c.body.messages as { content: string }[]).reduce((n, m) => n + Math.ceil(m.content.length / 4), 0));
    expect(stats.tokens.prompt).toBe(usage.reduce((a, b) => a + b, 0));
    expect(stats.tokens.completion).toBe(calls.length);
    expect(stats.latencyMs.samples).toBe(calls.length);
    expect(stats.latencyMs.p50!).toBeGreaterThan(0);
    expect(stats.latencyMs.p95!).toBeGreaterThanOrEqual(stats.latencyMs.p50!);
    const llm = match.replay().decisions.filter((d) => d.source === 'llm');
    expect(llm.length).toBeGreaterThan(0);
  });

  it('slowly: in realtime play a slow answer applies as many ticks later as it took', async () => {
    const { strategist, stats } = await play({ behaviour: { kind: 'answer', delayMs: 90 }, timing: 'realtime', config: short(4), env: { LLM_EVENTS: 'none' } });
    expect(stats.answers).toBeGreaterThan(3);
    for (const r of strategist.records) {
      expect(r.latencyMs!).toBeGreaterThanOrEqual(89);
      expect(r.applyTick - r.requestTick).toBe(latencyTicks(r.latencyMs!, 50));
      expect(r.applyTick - r.requestTick).toBeGreaterThanOrEqual(5);
    }
  });

  it('429 with Retry-After: counted, and the next call waits', async () => {
    const { match, strategist, stats, calls } = await play({ behaviour: { kind: 'status', status: 429, retryAfter: '1' }, env: { LLM_EVENTS: 'none' } });
    expect(match.done).toBe(true);
    expect(stats).toMatchObject({ calls: calls.length, failed: calls.length, answers: 0 });
    expect(stats.failures['rate-limit']).toBe(calls.length);
    const ticks = strategist.records.map((r) => r.requestTick);
    for (let i = 1; i < ticks.length; i++) expect(ticks[i]! - ticks[i - 1]!).toBeGreaterThanOrEqual(50);
  });

  it.each<[string, FakeBehaviour, FailureKind]>([
    ['500', { kind: 'status', status: 500 }, 'server'],
    ['garbage', { kind: 'answer', text: 'As an AI strategist I would consider the zone.' }, 'unparsable'],
    ['the wrong number of skills', { kind: 'answer', text: '1,3,2' }, 'wrong-count'],
    ['an unknown skill', { kind: 'answer', text: '1,9' }, 'unknown-skill'],
    ['an empty answer', { kind: 'answer', text: '' }, 'empty'],
    ['a reset connection', { kind: 'reset' }, 'network'],
    ['a body that is no completion', { kind: 'bad-body' }, 'server'],
  ])('%s: the team keeps its skills, the episode goes on, each call is counted', async (_name, behaviour, kind) => {
    const { match, stats, calls } = await play({ behaviour });
    expect(match.done).toBe(true);
    expect(calls.length).toBeGreaterThan(0);
    expect(stats.failures[kind]).toBe(calls.length);
    expect(stats).toMatchObject({ calls: calls.length, failed: calls.length, answers: 0, applied: 0 });
    expect(match.replay().decisions.filter((d) => d.team === 0)).toEqual([]);
  });

  it('a hang, where no number of timeouts in a row stops the match (LLM_MAX_TIMEOUTS=0): each call ends at the timeout and the match completes', async () => {
    const { match, stats, calls } = await play({ behaviour: { kind: 'hang' }, env: { LLM_TIMEOUT_MS: '120', LLM_MAX_TIMEOUTS: '0' }, config: short(6) });
    expect(match.done).toBe(true);
    expect(stats.failures.timeout).toBe(calls.length);
    expect(stats).toMatchObject({ failed: calls.length, answers: 0, abandoned: 0 });
    expect(stats.latencyMs.samples).toBe(0);
  });

  it('a mix of everything: every match completes and every kind is counted exactly', async () => {
    const cycle: FakeBehaviour[] = [
      { kind: 'answer' },
      { kind: 'status', status: 500 },
      { kind: 'answer', text: '1,3,2' },
      { kind: 'answer', delayMs: 20 },
      { kind: 'status', status: 429, retryAfter: '0' },
      { kind: 'answer', text: 'hmm' },
      { kind: 'reset' },
      { kind: 'answer', text: '1,9' },
      { kind: 'hang' },
      { kind: 'answer', text: '' },
      { kind: 'status', status: 503 },
    ];
    {
      const { match, stats, calls } = await play({ behaviour: (i) => cycle[i % cycle.length]!, env: { LLM_TIMEOUT_MS: '400' }, seed: 2, config: short(30) });
      expect(calls.length).toBeGreaterThan(cycle.length);
      expect(match.done).toBe(true);
      const expected: Record<string, number> = {};
      let valid = 0;
      for (const c of calls) {
        const kind = expectedKind(c.behaviour);
        if (kind === null) valid++;
        else expected[kind] = (expected[kind] ?? 0) + 1;
      }
      for (const [kind, n] of Object.entries(stats.failures)) expect([kind, n]).toEqual([kind, expected[kind] ?? 0]);
      expect(stats).toMatchObject({ calls: calls.length, answers: valid, applied: valid, failed: calls.length - valid, abandoned: 0 });
      expect(stats.requests).toBe(stats.answers + stats.failed + stats.abandoned);
      expect(stats.latencyMs.samples).toBe(calls.filter((c) => c.behaviour.kind === 'answer').length);
    }
  });

  it('JSON answers: response_format json_schema, a rationale on each decision', async () => {
    const { stats, calls, match } = await play({ behaviour: { kind: 'answer' }, env: { LLM_FORMAT: 'json' }, config: short(10) });
    expect(stats).toMatchObject({ failed: 0, answers: calls.length, formatFallbacks: 0 });
    const format = calls[0]!.body.response_format as { type: string; json_schema: { name: string; strict: boolean } };
    expect(format).toMatchObject({ type: 'json_schema', json_schema: { name: 'hillmind_decision', strict: true } });
    expect(calls[0]!.body.max_tokens).toBe(120);
    const decisions = match.replay().decisions.filter((d) => d.source === 'llm') as TimedDecision[];
    expect(decisions.length).toBeGreaterThan(0);
    for (const d of decisions) expect(d.rationale).toMatch(/\w/);
  });

  it('JSON answers where the server refuses json_schema: asked again without it, once, then never', async () => {
    const fake = await FakeOpenAiServer.start({ rejectJsonSchema: true });
    try {
      const { stats, calls } = await play({ fake, behaviour: { kind: 'answer' }, env: { LLM_FORMAT: 'json' }, config: short(6) });
      expect(fake.schemaRejections).toBe(1);
      expect(stats).toMatchObject({ failed: 0, answers: calls.length, formatFallbacks: 1 });
      expect(calls.every((c) => c.body.response_format === undefined)).toBe(true);
    } finally {
      await fake.close();
    }
  });

  it('a local server without a key: the SDK still works', async () => {
    const { stats } = await play({ behaviour: { kind: 'answer' }, env: { OPENAI_API_KEY: '' }, config: short(3) });
    expect(stats.failed).toBe(0);
    expect(stats.answers).toBeGreaterThan(0);
  });
});
