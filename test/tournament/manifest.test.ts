/**
 * A tournament's manifest names the language model each llm team answers with, so a run
 * resumed (or records checked) after the adapter, the model or a setting that shapes answers
 * changed is refused, while what a machine chooses (threads, the cache) moves nothing.
 */
import { describe, expect, it } from 'vitest';
import { nodePlatform, readPlatformSpec } from '../../src/teams/nodePlatform';
import { checkResume, fingerprints, LANGUAGE_MODEL_KEY, type Manifest } from '../../src/tournament/manifest';
import { describeWithLocalModel } from '../helpers/localModel';

const SERVER = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', LLM_MODEL: 'fake-gemma' };

/** The fingerprints of `teams` under an environment (no model is asked: availability is known without a call). */
async function fingerprintsUnder(env: Record<string, string>, teams: readonly string[] = ['heuristic', 'llm']) {
  const platform = nodePlatform(readPlatformSpec(env));
  try {
    return await fingerprints(teams, platform);
  } finally {
    await platform.llm.close();
  }
}

const manifestWith = (prints: Record<string, string>): Manifest => ({
  format: 'hillmind-tournament',
  version: 1,
  settings: { teams: ['heuristic', 'llm'], episodes: 4, seed: 1 },
  code: { version: '0.1.0' },
  fingerprints: prints,
  createdAt: '2026-12-07T00:00:00.000Z',
});

describe('the language model in a manifest', () => {
  it('is fingerprinted for each llm team, and only for those', async () => {
    const prints = await fingerprintsUnder(SERVER, ['heuristic', 'llm', 'llm:persona=cautious']);
    const keys = Object.keys(prints).filter((key) => key.startsWith(LANGUAGE_MODEL_KEY));
    expect(keys.sort()).toEqual([`${LANGUAGE_MODEL_KEY}llm`, `${LANGUAGE_MODEL_KEY}llm:persona=cautious`]);
    expect(prints[`${LANGUAGE_MODEL_KEY}llm`]).toMatch(/^[0-9a-f]{16}$/);
  });

  it('changes with the model and the settings that shape answers; not with the server address, the cache or the handling of silence', async () => {
    const key = `${LANGUAGE_MODEL_KEY}llm`;
    const base = (await fingerprintsUnder(SERVER))[key];
    const under = async (env: Record<string, string>) => (await fingerprintsUnder({ ...SERVER, ...env }))[key];
    expect(await under({ LLM_MODEL: 'another-model' })).not.toBe(base);
    expect(await under({ LLM_TEMPERATURE: '0.7' })).not.toBe(base);
    expect(await under({ LLM_FORMAT: 'json' })).not.toBe(base);
    expect(await under({ LLM_RATE_HZ: '1' })).not.toBe(base);
    // A queue worker asks the model server beside it.
    expect(await under({ OPENAI_BASE_URL: 'http://10.0.0.7:8080/v1' })).toBe(base);
    expect(await under({ LLM_CACHE: 'off' })).toBe(base);
    expect(await under({ LLM_CACHE: 'refresh' })).toBe(base);
    // What a stopped run's message tells the operator to change before --resume.
    expect(await under({ LLM_TIMEOUT_MS: '120000', LLM_MAX_TIMEOUTS: '10', LLM_ON_SILENCE: 'continue' })).toBe(base);
  });

  it("names a variant's own model apart from the default one", async () => {
    const prints = await fingerprintsUnder(SERVER, ['llm', 'llm:model=another-model']);
    expect(prints[`${LANGUAGE_MODEL_KEY}llm:model=another-model`]).not.toBe(prints[`${LANGUAGE_MODEL_KEY}llm`]);
  });

  it('refuses a resume after the language model changed, or from a manifest that does not name it', async () => {
    const started = await fingerprintsUnder(SERVER);
    const now = await fingerprintsUnder({ ...SERVER, LLM_TEMPERATURE: '0.7' });
    expect(() => checkResume(manifestWith(started), manifestWith(started))).not.toThrow();
    expect(() => checkResume(manifestWith(started), manifestWith(now))).toThrow(/language-model:llm changed since the run started/);
    const older = Object.fromEntries(Object.entries(started).filter(([key]) => !key.startsWith(LANGUAGE_MODEL_KEY)));
    expect(() => checkResume(manifestWith(older), manifestWith(started))).toThrow(/language-model:llm is not named by the run's manifest/);
  });
});

describeWithLocalModel('the local model in a manifest')('the local model in a manifest', () => {
  const key = `${LANGUAGE_MODEL_KEY}llm`;
  it('names the adapter (two adapters taught the same format differ), not the threads', async () => {
    const one = await fingerprintsUnder({ LLM_THREADS: '1' }, ['llm', 'llm:adapter=rules']);
    const two = await fingerprintsUnder({ LLM_THREADS: '2' }, ['llm', 'llm:adapter=rules']);
    expect(one).toEqual(two);
    expect(one[key]).not.toBe('unavailable');
    expect(one[key]).not.toBe(one[`${LANGUAGE_MODEL_KEY}llm:adapter=rules`]);
  });

  it("names how the engine decodes: LLM_COMPACT and LLM_CONTEXT", async () => {
    const base = (await fingerprintsUnder({}, ['llm']))[key];
    expect((await fingerprintsUnder({ LLM_COMPACT: 'sample' }, ['llm']))[key]).not.toBe(base);
    expect((await fingerprintsUnder({ LLM_CONTEXT: '4096' }, ['llm']))[key]).not.toBe(base);
  });
});
