/** A tournament's local engine: a sequence for every language-model team in flight, a thread on every core. */
import { expect, it } from 'vitest';
import { llmSettingsOf } from '../../src/llm';
import { readPlatformSpec } from '../../src/teams/nodePlatform';
import { tournamentSpec } from '../../src/tournament/run';

/** The local engine's threads and sequences a tournament's spec gives, from an environment. */
function engine(env: Record<string, string>, llmConcurrency: number, cores: number) {
  const result = llmSettingsOf(tournamentSpec(readPlatformSpec(env), llmConcurrency, cores).llm);
  if (!result.ok || result.settings.source !== 'local') throw new Error('expected the local engine');
  return { threads: result.settings.threads, sequences: result.settings.sequences };
}

it('asks for two sequences per llm episode in flight (at most 64) and a thread per core, unless the environment says otherwise', () => {
  expect(engine({}, 8, 2)).toEqual({ threads: 2, sequences: 16 });
  expect(engine({}, 100, 4).sequences).toBe(64);
  expect(engine({ LLM_SEQUENCES: '3', LLM_THREADS: '1' }, 8, 16)).toEqual({ threads: 1, sequences: 3 });
  // Outside a tournament the engine keeps its own defaults: 4 sequences, threads by the cores.
  const plain = llmSettingsOf(readPlatformSpec({}).llm);
  expect(plain.ok && plain.settings.source === 'local' && [plain.settings.sequences, plain.settings.threads]).toEqual([4, undefined]);
});
