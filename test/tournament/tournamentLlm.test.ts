/** A tournament's local engine: a sequence for every language-model team in flight, a thread on every core. */
import { expect, it } from 'vitest';
import { withTournamentLlm } from '../../src/tournament/run';

it('asks for two sequences per llm episode in flight (at most 64) and a thread per core, unless the environment says otherwise', () => {
  expect(withTournamentLlm({ env: { LLM_MODEL: 'm' } }, 8, 2).env).toEqual({ LLM_MODEL: 'm', LLM_SEQUENCES: '16', LLM_THREADS: '2' });
  expect(withTournamentLlm({ env: {} }, 100, 4).env.LLM_SEQUENCES).toBe('64');
  const own = { env: { LLM_SEQUENCES: '3', LLM_THREADS: '1' } };
  expect(withTournamentLlm(own, 8, 16).env).toEqual(own.env);
});
