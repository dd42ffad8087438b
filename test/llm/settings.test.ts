import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  LIVE_TIMEOUT_MS,
  LLM_SETUP_HELP,
  OPENAI_DEFAULT_BASE_URL,
  RuleChatClient,
  type TimingMode,
  WAITING_TIMEOUT_MS,
  parseEventTriggers,
  parseTimingMode,
  preflightTimeoutMs,
  proxyLlmAccess,
  proxyTimeoutMs,
  readLlmSettings,
  runsAdapter,
  sdkTimeoutMs,
  strategistSettingsOf,
} from '../../src/llm';
import { DEFAULT_CONFIG } from '../../src/sim';
import { nodeLlmAccess } from '../../src/llm/node';
import { llmSettingsOf, parseLlmSpec, withLlmFlags } from '../../src/llm/settings';
import { LOCAL_MODELS } from '../../src/llm/localModels';
import { createLlmTeam, createPlatform, createTeam, llmStrategistOf, teamAvailability } from '../../src/teams';
import { FakeOpenAiServer } from './fakeOpenAiServer';

describe('LLM settings', () => {
  it('with no settings: the pulled local model; HILLMIND_LLM_GGUF names any file; a server, when set, wins', () => {
    expect(readLlmSettings({})).toMatchObject({
      ok: true,
      settings: { source: 'local', model: 'gemma-3-270m-q4_k_m-strategist', gguf: '.cache/llm/models/gemma-3-270m-q4_k_m-strategist.gguf', pulled: 'gemma3-270m', sequences: 4, contextSize: 1024, format: 'terse' },
    });
    expect(readLlmSettings({ LLM_MODEL: 'smollm2-135m', HILLMIND_LLM_DIR: '/models' })).toMatchObject({
      ok: true,
      settings: { source: 'local', model: 'SmolLM2-135M-Instruct.Q4_1', gguf: '/models/SmolLM2-135M-Instruct.Q4_1.gguf', pulled: 'smollm2-135m' },
    });
    const file = { HILLMIND_LLM_GGUF: '/weights/qwen2.5-0.5b-instruct-q4_k_m.gguf', LLM_MODEL: 'smollm2-135m', LLM_THREADS: '3', LLM_SEQUENCES: '8', LLM_CONTEXT: '2048' };
    expect(readLlmSettings(file)).toMatchObject({
      ok: true,
      settings: { source: 'local', model: 'qwen2.5-0.5b-instruct-q4_k_m', gguf: file.HILLMIND_LLM_GGUF, pulled: null, threads: 3, sequences: 8, contextSize: 2048 },
    });
    expect(readLlmSettings({ ...file, OPENAI_BASE_URL: 'http://localhost:11434/v1', LLM_MODEL: 'gemma3:27b' })).toMatchObject({ ok: true, settings: { source: 'server', model: 'gemma3:27b' } });
    expect(readLlmSettings({ ...file, OPENAI_API_KEY: 'sk-x', LLM_MODEL: 'gpt-4o-mini' })).toMatchObject({ ok: true, settings: { source: 'server', baseUrl: OPENAI_DEFAULT_BASE_URL } });
  });

  it('the pulled model runs with its shipped adapter; LLM_ADAPTER names another or none; a GGUF file has none unless named', () => {
    expect(readLlmSettings({})).toMatchObject({ ok: true, settings: { adapter: 'models/strategist-gemma3-270m.gguf' } });
    expect(readLlmSettings({ LLM_ADAPTER: 'none' })).toMatchObject({ ok: true, settings: { adapter: null } });
    expect(readLlmSettings({ LLM_ADAPTER: ' runs/tuned.gguf ' })).toMatchObject({ ok: true, settings: { adapter: 'runs/tuned.gguf' } });
    expect(readLlmSettings({ LLM_MODEL: 'smollm2-135m' })).toMatchObject({ ok: true, settings: { adapter: null } });
    expect(readLlmSettings({ HILLMIND_LLM_GGUF: '/w/other.gguf' })).toMatchObject({ ok: true, settings: { adapter: null } });
    expect(readLlmSettings({ HILLMIND_LLM_GGUF: '/w/other.gguf', LLM_ADAPTER: '/w/other-lora.gguf' })).toMatchObject({ ok: true, settings: { adapter: '/w/other-lora.gguf' } });
    expect(readLlmSettings({ LLM_ADAPTER: 'runs/tuned.pt' })).toMatchObject({ ok: false, error: expect.stringContaining('LLM_ADAPTER must be none or the path of a .gguf LoRA adapter') });
    // Whether an adapter runs (the reproduction then plays the model alone against it).
    expect(runsAdapter(readLlmSettings({}))).toBe(true);
    expect(runsAdapter(readLlmSettings({ LLM_FORMAT: 'json' }))).toBe(false);
    expect(runsAdapter(readLlmSettings({ LLM_ADAPTER: 'none' }))).toBe(false);
    expect(runsAdapter(readLlmSettings({ OPENAI_BASE_URL: 'http://localhost:8080/v1', LLM_MODEL: 'gemma-3-27b' }))).toBe(false);
    expect(runsAdapter(readLlmSettings({ LLM_ADAPTER: 'runs/tuned.pt' }))).toBe(false);
  });

  it("asks the pulled model in the format its shipped adapter was taught, unless LLM_FORMAT says otherwise; others in compact", () => {
    const taught = LOCAL_MODELS['gemma3-270m']!.adapterFormat;
    expect(taught).toBeDefined();
    expect(readLlmSettings({})).toMatchObject({ ok: true, settings: { format: taught } });
    // Asked in another format, the model runs alone (the adapter teaches only its own), unless LLM_ADAPTER names one.
    expect(readLlmSettings({ LLM_FORMAT: 'json' })).toMatchObject({ ok: true, settings: { format: 'json', adapter: null } });
    expect(readLlmSettings({ LLM_FORMAT: taught! })).toMatchObject({ ok: true, settings: { format: taught, adapter: 'models/strategist-gemma3-270m.gguf' } });
    expect(readLlmSettings({ LLM_FORMAT: 'json', LLM_ADAPTER: 'models/strategist-gemma3-270m.gguf' })).toMatchObject({ ok: true, settings: { format: 'json', adapter: 'models/strategist-gemma3-270m.gguf' } });
    expect(readLlmSettings({ LLM_ADAPTER: 'none' })).toMatchObject({ ok: true, settings: { format: 'compact' } });
    expect(readLlmSettings({ LLM_ADAPTER: 'runs/tuned.gguf' })).toMatchObject({ ok: true, settings: { format: 'compact' } });
    expect(readLlmSettings({ LLM_ADAPTER: 'runs/tuned.gguf', LLM_FORMAT: 'terse' })).toMatchObject({ ok: true, settings: { format: 'terse' } });
    expect(readLlmSettings({ OPENAI_BASE_URL: 'http://localhost:8080/v1', LLM_MODEL: 'gemma-3-27b' })).toMatchObject({ ok: true, settings: { format: 'compact' } });
    expect(readLlmSettings({ LLM_FORMAT: 'yaml' })).toMatchObject({ ok: false, error: expect.stringContaining('LLM_FORMAT must be one of compact, json, terse') });
  });

  it('a server without a model, or a model name that is not a local one, is refused with how to configure one', () => {
    const result = readLlmSettings({ OPENAI_BASE_URL: 'http://localhost:11434/v1' });
    expect(result).toMatchObject({ ok: false, configured: false, error: expect.stringMatching(/LLM_MODEL not set/) });
    if (result.ok) return;
    expect(result.help).toContain('npm run llm:pull');
    expect(result.help).toContain('OPENAI_BASE_URL=http://localhost:11434/v1 LLM_MODEL=gemma3:27b');
    expect(result.help).toMatch(/OpenAI:[\s\S]*vLLM:[\s\S]*llama\.cpp:/);
    expect(readLlmSettings({ LLM_MODEL: 'gemma3:27b' })).toMatchObject({
      ok: false,
      error: "LLM_MODEL 'gemma3:27b' is not a local model (gemma3-270m, smollm2-135m): set OPENAI_BASE_URL for a model server, or HILLMIND_LLM_GGUF=<path> for a GGUF file",
    });
    expect(readLlmSettings({ OPENAI_BASE_URL: '  ', LLM_MODEL: '' })).toMatchObject({ ok: true, settings: { source: 'local' } });
    const bad = (extra: Record<string, string>) => {
      const r = readLlmSettings(extra);
      return r.ok ? '' : r.error;
    };
    expect(bad({ LLM_THREADS: '0' })).toMatch(/LLM_THREADS must be between 1 and 256/);
    expect(bad({ LLM_SEQUENCES: '2.5' })).toMatch(/LLM_SEQUENCES must be a whole number/);
    expect(bad({ LLM_CONTEXT: 'big' })).toMatch(/LLM_CONTEXT must be a number/);
  });

  it('a local server needs no key; OpenAI itself needs only the key and a model', () => {
    const local = readLlmSettings({ OPENAI_BASE_URL: 'http://localhost:11434/v1', LLM_MODEL: 'gemma3:27b' });
    expect(local).toMatchObject({ ok: true, settings: { baseUrl: 'http://localhost:11434/v1', apiKey: '', model: 'gemma3:27b' } });
    const openai = readLlmSettings({ OPENAI_API_KEY: 'sk-x', LLM_MODEL: 'gpt-4o-mini' });
    expect(openai).toMatchObject({ ok: true, settings: { baseUrl: OPENAI_DEFAULT_BASE_URL, apiKey: 'sk-x' } });
  });

  it('defaults: temperature 0.1, compact answers, 2 s timeout, 2 Hz, all events, realtime, cache on', () => {
    const result = readLlmSettings({ OPENAI_BASE_URL: 'http://h/v1', LLM_MODEL: 'm' });
    expect(result.ok && result.settings).toEqual({
      source: 'server',
      baseUrl: 'http://h/v1',
      apiKey: '',
      model: 'm',
      temperature: 0.1,
      format: 'compact',
      timeoutMs: 2000,
      rateHz: 2,
      events: ['elimination', 'respawn', 'contested', 'low-health', 'situation'],
      timing: { kind: 'realtime' },
      maxTimeouts: 3,
      onSilence: 'stop',
      cache: 'use',
      skills: 'rl',
    });
  });

  it('where the game waits for answers (lockstep, ticks:N) a call may take 60 s unless LLM_TIMEOUT_MS says otherwise', () => {
    const timeout = (env: Record<string, string>, flags = {}) => {
      const r = llmSettingsOf(withLlmFlags(parseLlmSpec({ OPENAI_BASE_URL: 'http://h/v1', LLM_MODEL: 'm', ...env }), flags));
      return r.ok ? r.settings.timeoutMs : null;
    };
    expect(timeout({ LLM_TIMING: 'lockstep' })).toBe(60_000);
    expect(timeout({ LLM_TIMING: 'ticks:3' })).toBe(60_000);
    expect(timeout({ LLM_TIMING: 'realtime' })).toBe(2000);
    expect(timeout({ LLM_TIMING: 'lockstep', LLM_TIMEOUT_MS: '700' })).toBe(700);
    // A command line's timing (npm run reproduce's lockstep) sets the default as the environment's does.
    expect(timeout({}, { timing: { kind: 'lockstep' } })).toBe(60_000);
    expect(timeout({ LLM_TIMEOUT_MS: '900' }, { timing: { kind: 'lockstep' } })).toBe(900);
  });

  it('one default for the call timeout wherever settings enter: the environment, the page\'s status, options given directly', async () => {
    const timings: TimingMode[] = [{ kind: 'live' }, { kind: 'realtime' }, { kind: 'ticks', ticks: 3 }, { kind: 'lockstep' }];
    for (const timing of timings) {
      const expected = timing.kind === 'live' || timing.kind === 'realtime' ? LIVE_TIMEOUT_MS : WAITING_TIMEOUT_MS;
      expect(strategistSettingsOf({ timing }).timeoutMs, timing.kind).toBe(expected);
      if (timing.kind !== 'live') {
        const fromEnv = llmSettingsOf(withLlmFlags(parseLlmSpec({ OPENAI_BASE_URL: 'http://h/v1', LLM_MODEL: 'm' }), { timing }));
        expect(fromEnv.ok && fromEnv.settings.timeoutMs, timing.kind).toBe(expected);
      }
      // A team built from options that leave the timeout out (tests, benchmarks) is not defaulted again below.
      const team = createLlmTeam({ team: 0, seed: 1, config: DEFAULT_CONFIG, platform: createPlatform() }, { client: new RuleChatClient(), timing });
      expect(llmStrategistOf(team)!.timeoutMs, timing.kind).toBe(expected);
    }
    // The page's status without a timeout: the page plays live.
    const status = { configured: true, model: 'm' };
    const page = proxyLlmAccess({ fetch: async () => new Response(JSON.stringify(status), { status: 200, headers: { 'content-type': 'application/json' } }) });
    expect((await page.connect()).settings.timeoutMs).toBe(LIVE_TIMEOUT_MS);
  });

  it('the bounds around a call derive from its timeout: the page gives up before the proxy, the SDK and the pre-flight last longer', () => {
    for (const timeoutMs of [1, 500, LIVE_TIMEOUT_MS, 10_000, WAITING_TIMEOUT_MS]) {
      expect(proxyTimeoutMs(timeoutMs)).toBeGreaterThan(timeoutMs);
      expect(sdkTimeoutMs(timeoutMs)).toBeGreaterThanOrEqual(Math.max(2 * timeoutMs, 5000));
      expect(preflightTimeoutMs(timeoutMs)).toBeGreaterThanOrEqual(Math.max(3 * timeoutMs, 5000));
    }
    expect([proxyTimeoutMs(LIVE_TIMEOUT_MS), sdkTimeoutMs(LIVE_TIMEOUT_MS), preflightTimeoutMs(LIVE_TIMEOUT_MS)]).toEqual([3500, 5000, 6000]);
  });

  it('reads every setting and rejects bad values with a message naming the variable', () => {
    const ok = readLlmSettings({
      OPENAI_BASE_URL: 'http://h/v1',
      LLM_MODEL: 'm',
      LLM_TEMPERATURE: '0',
      LLM_FORMAT: 'JSON',
      LLM_TIMEOUT_MS: '500',
      LLM_RATE_HZ: '0',
      LLM_EVENTS: 'elimination, contested',
      LLM_MAX_TOKENS: '0',
      LLM_TIMING: 'ticks:12',
      LLM_CACHE: 'refresh',
      LLM_CACHE_DIR: '/tmp/x',
    });
    expect(ok).toMatchObject({
      ok: true,
      settings: { temperature: 0, format: 'json', timeoutMs: 500, rateHz: 0, events: ['elimination', 'contested'], maxTokens: 0, timing: { kind: 'ticks', ticks: 12 }, cache: 'refresh', cacheDir: '/tmp/x' },
    });
    const bad = (extra: Record<string, string>) => {
      const r = readLlmSettings({ OPENAI_BASE_URL: 'http://h/v1', LLM_MODEL: 'm', ...extra });
      return r.ok ? '' : r.error;
    };
    expect(bad({ OPENAI_BASE_URL: 'ftp://h' })).toMatch(/OPENAI_BASE_URL must be an http/);
    expect(bad({ LLM_TEMPERATURE: 'warm' })).toMatch(/LLM_TEMPERATURE/);
    expect(bad({ LLM_TEMPERATURE: '3' })).toMatch(/LLM_TEMPERATURE must be between 0 and 2/);
    expect(bad({ LLM_FORMAT: 'xml' })).toMatch(/LLM_FORMAT must be one of compact, json/);
    expect(bad({ LLM_TIMING: 'live' })).toMatch(/LLM_TIMING must be realtime, ticks:N/);
    expect(bad({ LLM_EVENTS: 'explosions' })).toMatch(/LLM_EVENTS/);
    expect(bad({ LLM_CACHE: 'maybe' })).toMatch(/LLM_CACHE must be one of use, refresh, off/);
    expect(bad({ LLM_TIMEOUT_MS: '0' })).toMatch(/LLM_TIMEOUT_MS/);
    expect(bad({ LLM_SKILLS: 'magic' })).toMatch(/LLM_SKILLS must be scripted or rl/);
  });

  it('parses timing modes and event lists', () => {
    expect(parseTimingMode('lockstep')).toEqual({ kind: 'lockstep' });
    expect(parseTimingMode('ticks:0')).toEqual({ kind: 'ticks', ticks: 0 });
    expect(parseTimingMode('ticks:-1')).toBeNull();
    expect(parseTimingMode('ticks')).toBeNull();
    expect(parseEventTriggers('none')).toEqual([]);
    expect(parseEventTriggers('all')).toEqual(['elimination', 'respawn', 'contested', 'low-health', 'situation']);
    expect(parseEventTriggers('respawn,nope')).toBeNull();
  });
});

describe("the registry's llm team", () => {
  /** A platform whose language model is what `env` configures, and no trained models. */
  const platformFor = (env: Record<string, string>) => createPlatform({ llm: nodeLlmAccess({ spec: parseLlmSpec(env) }) });
  const ctx = (env: Record<string, string>) => ({ team: 0 as const, seed: 1, config: DEFAULT_CONFIG, platform: platformFor(env) });

  it("without a server or a pulled model: refused with 'not available' and how to get one, by the probe too", async () => {
    const none = { HILLMIND_LLM_DIR: '/nonexistent/models', LLM_SKILLS: 'scripted' };
    await expect(createTeam('llm', ctx(none))).rejects.toThrow(
      /^team 'llm' is not available: the local model gemma3-270m is not pulled yet, or \/nonexistent\/models\/gemma-3-270m-q4_k_m-strategist\.gguf changed .*\(run npm run llm:pull\)/s,
    );
    await expect(createTeam('llm', ctx(none))).rejects.toThrow(LLM_SETUP_HELP);
    const probe = await teamAvailability('llm', platformFor(none));
    expect(probe).toMatchObject({ ok: false, needs: { languageModel: true } });
    expect(probe.ok ? '' : probe.reason).toMatch(/^the local model gemma3-270m is not pulled yet.*; with no settings the local model runs: npm run llm:pull fetches it/s);
  });

  it('a missing adapter is refused with how to name another or none; a present one gives the model its name and digest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'adapter-'));
    try {
      const model = join(dir, 'base.gguf');
      writeFileSync(model, 'not really a model');
      const missing = await nodeLlmAccess({ spec: parseLlmSpec({ HILLMIND_LLM_GGUF: model, LLM_ADAPTER: join(dir, 'tuned.gguf') }) }).availability();
      expect(missing).toMatchObject({ ok: false, reason: `the LoRA adapter ${join(dir, 'tuned.gguf')} does not exist` });
      expect(missing.ok ? '' : missing.help).toContain('LLM_ADAPTER=none');
      writeFileSync(join(dir, 'tuned.gguf'), 'adapter bytes');
      const present = await nodeLlmAccess({ spec: parseLlmSpec({ HILLMIND_LLM_GGUF: model, LLM_ADAPTER: join(dir, 'tuned.gguf') }) }).availability();
      // sha256 of "adapter bytes", first 8 hex digits: another adapter, another name (and cache).
      expect(present).toMatchObject({ ok: true, model: `base+tuned@${createHash('sha256').update('adapter bytes').digest('hex').slice(0, 8)}` });
      const alone = await nodeLlmAccess({ spec: parseLlmSpec({ HILLMIND_LLM_GGUF: model }) }).availability();
      expect(alone).toMatchObject({ ok: true, model: 'base' });
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('with OPENAI_BASE_URL and LLM_MODEL in the environment: available, key optional', async () => {
    const fake = await FakeOpenAiServer.start();
    try {
      // LLM_SKILLS=scripted: no trained models on this platform.
      const env = { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: '', LLM_MODEL: 'gemma3:27b', LLM_RATE_HZ: '5', LLM_SKILLS: 'scripted' };
      expect(await teamAvailability('llm', platformFor(env))).toMatchObject({ ok: true, needs: { models: [], languageModel: true } });
      const team = await createTeam('llm', ctx(env));
      const strategist = llmStrategistOf(team)!;
      expect(team.id).toBe('llm');
      expect(strategist.model).toBe('gemma3:27b');
      expect(strategist.ratePeriodTicks).toBe(10);
      expect(strategist.temperature).toBe(0.1);
      expect(strategist.timing).toEqual({ kind: 'realtime' });
    } finally {
      await fake.close();
    }
  });

  it('LLM_SKILLS=rl takes the trained skills, and says so where there are none', async () => {
    const env = { OPENAI_BASE_URL: 'http://localhost:11434/v1', LLM_MODEL: 'm', LLM_SKILLS: 'rl' };
    await expect(createTeam('llm', ctx(env))).rejects.toThrow(/team 'llm' is not available: LLM_SKILLS=rl needs the trained skills: .*\(or set LLM_SKILLS=scripted\)/);
    const probe = await teamAvailability('llm', platformFor(env));
    expect(probe).toMatchObject({ ok: false, needs: { models: ['navigate', 'combat', 'secure', 'retreat'] } });
    expect(probe.ok ? '' : probe.reason).toMatch(/no trained models are available here.*\(or set LLM_SKILLS=scripted\)/);
  });

  it('invalid settings are refused with the reason', async () => {
    const env = { OPENAI_BASE_URL: 'http://localhost:11434/v1', LLM_MODEL: 'm', LLM_FORMAT: 'yaml' };
    await expect(createTeam('llm', ctx(env))).rejects.toThrow(/team 'llm' is not available: the language-model settings are invalid: LLM_FORMAT/);
  });
});
