/**
 * The Node platform's spec and lifecycle: the spec is read once from an environment and the
 * command line, survives a trip through JSON (what a worker thread receives) and is checked
 * on arrival; the platform built from it closes what its language model opened, the local
 * engine above all, and opens nothing after.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ChatClient, type ChatRequest, type ChatResponse, type LocalLlmSettings, type ServerLlmSettings, llmSettingsOf, parseLlmSpec } from '../../src/llm';
import { nodeLlmAccess } from '../../src/llm/node';
import { createPlatform } from '../../src/teams';
import { nodePlatform, parsePlatformSpec, readPlatformSpec } from '../../src/teams/nodePlatform';
import { episodeWorkerDataSchema } from '../../src/tournament/workerData';
import { tempDir } from '../helpers/tempDirs';

const dir = tempDir('platform');

/** A file the local engine's availability accepts (it is never loaded: the engine below is a double). */
const gguf = join(dir, 'tiny.gguf');
writeFileSync(gguf, 'not a model');

/** A chat client over a counting stand-in for the local engine: what it loaded, and how often it was freed. */
class CountingEngineClient implements ChatClient {
  static loaded: string[] = [];
  static disposed = 0;
  constructor(readonly model: string) {
    CountingEngineClient.loaded.push(model);
  }
  async complete(_request: ChatRequest): Promise<ChatResponse> {
    return { text: '1,1', model: this.model };
  }
  async close(): Promise<void> {
    CountingEngineClient.disposed++;
  }
}

describe('the platform spec', () => {
  it('is read once from the environment and the flags, travels as JSON and is checked on arrival', () => {
    const env = { HILLMIND_MODELS: 'elsewhere/models', HILLMIND_LLM_GGUF: gguf, LLM_SEQUENCES: '6', LLM_TIMING: 'ticks:3', LLM_EVENTS: 'elimination' };
    const spec = readPlatformSpec(env, { llm: { cache: 'off' } });
    expect(spec.models).toBe('elsewhere/models');
    const received = parsePlatformSpec(JSON.parse(JSON.stringify(spec)));
    expect(received).toEqual(spec);
    expect(llmSettingsOf(received.llm)).toEqual(llmSettingsOf(spec.llm));
    expect(llmSettingsOf(received.llm)).toMatchObject({
      ok: true,
      settings: { source: 'local', gguf, sequences: 6, timing: { kind: 'ticks', ticks: 3 }, events: ['elimination'], cache: 'off' },
    });
    // A worker thread's data is the spec, never environment strings.
    expect(episodeWorkerDataSchema.safeParse({ spec, control: 'c' }).success).toBe(true);
    expect(episodeWorkerDataSchema.safeParse({ env, control: 'c' }).success).toBe(false);
    expect(() => parsePlatformSpec({ ...spec, models: '' })).toThrow(/^not a platform spec: models: /);
    expect(() => parsePlatformSpec({ models: 'models', llm: { ...spec.llm, asking: { ok: true, value: { temperature: 'hot' } } } })).toThrow(/llm\.asking\.value\.temperature/);
  });

  it('keeps what is wrong until a language model is wanted, and then says it', async () => {
    const spec = readPlatformSpec({ LLM_TEMPERATURE: 'warm', LLM_THREADS: '0' });
    const settings = llmSettingsOf(spec.llm);
    expect(settings.ok ? '' : settings.error).toBe('the language-model settings are invalid: LLM_TEMPERATURE must be a number; LLM_THREADS must be between 1 and 256');
    const platform = nodePlatform(spec);
    expect(await platform.models.unavailable('navigate')).toBeNull();
    await expect(platform.llm.availability()).resolves.toMatchObject({ ok: false, reason: expect.stringMatching(/LLM_TEMPERATURE must be a number/) });
    await platform.close();
  });

  it('reaches another model (llm:model=...) from the spec, never from an environment', () => {
    const server = parseLlmSpec({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    // No LLM_MODEL: the default model is missing, a named one is reached on the same server.
    expect(llmSettingsOf(server)).toMatchObject({ ok: false, configured: false });
    expect(llmSettingsOf(server, 'gemma3:27b')).toMatchObject({ ok: true, settings: { source: 'server', baseUrl: 'http://127.0.0.1:9/v1', model: 'gemma3:27b' } });
    // A named local model is a pulled one, over HILLMIND_LLM_GGUF.
    const local = parseLlmSpec({ HILLMIND_LLM_GGUF: gguf, HILLMIND_LLM_DIR: '/pulled' });
    expect(llmSettingsOf(local, 'smollm2-135m')).toMatchObject({ ok: true, settings: { source: 'local', gguf: '/pulled/SmolLM2-135M-Instruct.Q4_1.gguf', pulled: 'smollm2-135m' } });
    expect(llmSettingsOf(local, 'nope')).toMatchObject({ ok: false, error: expect.stringMatching(/^LLM_MODEL 'nope' is not a local model/) });
  });
});

describe("the platform's close()", () => {
  it('disposes the local engine it loaded, once, and loads none after', async () => {
    CountingEngineClient.loaded = [];
    CountingEngineClient.disposed = 0;
    const spec = parseLlmSpec({ HILLMIND_LLM_GGUF: gguf });
    const platform = createPlatform({ llm: nodeLlmAccess({ spec, openLocal: async (s: LocalLlmSettings) => new CountingEngineClient(s.model) }) });
    await platform.close();
    expect(CountingEngineClient.disposed).toBe(0);
    const fresh = createPlatform({ llm: nodeLlmAccess({ spec, openLocal: async (s: LocalLlmSettings) => new CountingEngineClient(s.model) }) });
    const connection = await fresh.llm.connect();
    expect(await fresh.llm.connect()).toBe(connection);
    expect(CountingEngineClient.loaded).toEqual(['tiny']);
    await fresh.close();
    expect(CountingEngineClient.disposed).toBe(1);
    await fresh.close();
    expect(CountingEngineClient.disposed).toBe(1);
    await expect(fresh.llm.connect()).rejects.toThrow(/the language model was closed/);
    expect(CountingEngineClient.loaded).toEqual(['tiny']);
  });

  it('frees an engine still loading when it closes', async () => {
    CountingEngineClient.disposed = 0;
    let finishLoading: () => void = () => {};
    const loading = new Promise<void>((resolve) => (finishLoading = resolve));
    const openLocal = async (s: LocalLlmSettings) => {
      await loading;
      return new CountingEngineClient(s.model);
    };
    const platform = createPlatform({ llm: nodeLlmAccess({ spec: parseLlmSpec({ HILLMIND_LLM_GGUF: gguf }), openLocal }) });
    const connecting = platform.llm.connect();
    const closing = platform.close();
    finishLoading();
    await closing;
    await connecting;
    expect(CountingEngineClient.disposed).toBe(1);
  });

  it('closes the other models a team variant opened too', async () => {
    const closed: string[] = [];
    const createClient = (s: ServerLlmSettings): ChatClient => ({
      model: s.model,
      complete: async () => ({ text: '1,1', model: s.model }),
      close: async () => void closed.push(s.model),
    });
    const platform = createPlatform({ llm: nodeLlmAccess({ spec: parseLlmSpec({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', LLM_MODEL: 'first' }), createClient }) });
    await platform.llm.connect();
    await platform.llm.withModel!({ model: 'second' }).connect();
    await platform.close();
    expect(closed.sort()).toEqual(['first', 'second']);
  });
});
