/**
 * The local engine answers alike on any number of threads (localEngine.ts, EXACT_ATTENTION):
 * the same decisions read bit-identical number probabilities at LLM_THREADS=1 and 2, so the
 * same seed gives the same match whatever the machine's cores. The engines run one after the
 * other (never more than two threads at once). Needs the pulled model; never skipped in CI.
 */
import { expect, it } from 'vitest';
import { type ChatRequest, STRATEGIST_DEFAULTS, buildRequest } from '../../src/llm';
import { sampleWorlds } from '../../src/bench/strategist';
import type { LlamaChatClient } from '../../src/llm/node/llamaClient';
import { nodeLlmAccess } from '../../src/llm/node';
import { parseLlmSpec } from '../../src/llm/settings';
import { teamSituation } from '../../src/sim';
import { describeWithLocalModel, requireLocalModel, watchNumberReads } from '../helpers/localModel';

/** Every number probability the model read for `requests`, in order, on an engine of `threads` threads. */
async function reads(threads: number, requests: readonly ChatRequest[]): Promise<{ probabilities: number[][]; answers: string[] }> {
  const access = nodeLlmAccess({ spec: parseLlmSpec({ LLM_THREADS: String(threads), LLM_SEQUENCES: '1', LLM_CACHE: 'off' }) });
  try {
    const client = (await access.connect()).client as LlamaChatClient;
    const watched = watchNumberReads(client);
    const answers: string[] = [];
    for (const request of requests) answers.push((await client.complete(request, new AbortController().signal)).text);
    return { probabilities: watched.take(), answers };
  } finally {
    await access.close();
  }
}

describeWithLocalModel('answers on 1 and 2 threads')('the local engine on any number of threads', () => {
  it('reads the same decisions\' number probabilities bit for bit on 1 and 2 threads', async () => {
    requireLocalModel();
    const requests = sampleWorlds(4).map((s) => buildRequest(teamSituation(s.world, s.team), s.current, { format: 'compact', temperature: STRATEGIST_DEFAULTS.temperature }));
    const one = await reads(1, requests);
    const two = await reads(2, requests);
    expect(one.probabilities).toHaveLength(2 * requests.length);
    expect(two.probabilities).toEqual(one.probabilities);
    expect(two.answers).toEqual(one.answers);
  }, 600_000);
});
