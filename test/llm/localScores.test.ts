/**
 * The local engine's default compact decoding: each agent's number read from the model's
 * probabilities and calibrated against its prior on a content-free state, no sampling.
 * The untuned model sampled "1,3" for 98% of real situations; read this way its answers
 * follow something other than its taste for one answer.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LlmConnection, buildRequest, parseExamSet } from '../../src/llm';
import { type LlamaChatClient, calibratedChoice, contentFreeState, stringBound } from '../../src/llm/node/llamaClient';
import { nodeLlmAccess } from '../../src/llm/node';
import { parseLlmSpec } from '../../src/llm/settings';
import { describeWithLocalModel, requireLocalModel } from '../helpers/localModel';
import { describe } from 'vitest';

describe('calibration', () => {
  it('keeps the number whose probability most exceeds its prior', () => {
    expect(calibratedChoice([0.1, 0.2, 0.6, 0.1], [0.25, 0.25, 0.25, 0.25])).toBe(3);
    // The model always likes 3: a 3 at its usual level loses to a 2 well above its own.
    expect(calibratedChoice([0.05, 0.3, 0.6, 0.05], [0.05, 0.1, 0.8, 0.05])).toBe(2);
    expect(contentFreeState(2)).toBe('Agent 1: N/A.\nAgent 2: N/A.\nTeam: N/A.');
  });
});

describe("a JSON answer's strings", () => {
  it('fit the token budget even at one token a character, so the answer always closes', () => {
    // 120 tokens (the json default): 56 characters of rationale, and 64 for the rest of the object.
    expect(stringBound(160, 120)).toBe(56);
    expect(stringBound(160, 1000)).toBe(160);
    expect(stringBound(160, undefined)).toBe(160);
    expect(stringBound(160, 20)).toBe(8);
  });
});

const set = parseExamSet(readFileSync('models/strategist-exam.v1.json', 'utf8'), 'exam');
// The model alone: calibration is what an untuned model needs (the shipped adapter answers uncalibrated).
const ENV = { LLM_CACHE: 'off', LLM_SEQUENCES: '1', LLM_THREADS: '1', LLM_ADAPTER: 'none' };

describeWithLocalModel('scored compact answers')('scored compact answers on the local model', () => {
  let connection: LlmConnection;
  let client: LlamaChatClient;
  const ask = (i: number) => {
    const item = set.items[i]!;
    return client.complete(buildRequest(item.situation, item.current, { format: 'compact', temperature: 0.1 }), new AbortController().signal);
  };

  beforeAll(async () => {
    requireLocalModel();
    connection = await nodeLlmAccess({ spec: parseLlmSpec(ENV) }).connect();
    client = connection.client as LlamaChatClient;
  }, 120_000);
  afterAll(async () => {
    await client?.engine.dispose();
  });

  it('answers every situation validly, the same answer for the same prompt, and not one answer for all', async () => {
    const answers: string[] = [];
    for (let i = 0; i < 24; i++) answers.push((await ask(i)).text);
    for (const a of answers) expect(a).toMatch(/^[1-4],[1-4]$/);
    expect((await ask(3)).text).toBe(answers[3]);
    const counts = new Map<string, number>();
    for (const a of answers) counts.set(a, (counts.get(a) ?? 0) + 1);
    expect(Math.max(...counts.values()) / answers.length).toBeLessThan(0.9);
    expect(client.lastCall!.completionTokens).toBe(3);
  }, 300_000);

  it('samples as before with LLM_COMPACT=sample, and refuses an unknown way', async () => {
    const sampled = nodeLlmAccess({ spec: parseLlmSpec({ ...ENV, LLM_COMPACT: 'sample' }) });
    expect((await sampled.availability()).ok).toBe(true);
    const bad = await nodeLlmAccess({ spec: parseLlmSpec({ ...ENV, LLM_COMPACT: 'guess' }) }).availability();
    expect(bad).toMatchObject({ ok: false });
    expect(JSON.stringify(bad)).toMatch(/LLM_COMPACT must be one of scores, sample/);
  });
});
