/**
 * Which answers are the same every time (what the server's decision cache may keep): the
 * local engine's scored compact answers at any temperature, anything at temperature 0, and
 * for a client that says nothing, temperature 0 alone.
 */
import { describe, expect, it } from 'vitest';
import { type ChatClient, type ChatRequest, answersAlike } from '../../src/llm';
import { LlamaChatClient } from '../../src/llm/node/llamaClient';
import type { LocalEngine } from '../../src/llm/node/localEngine';

const engine = { name: 'gemma-3-270m-q4_k_m', options: { gguf: 'unused.gguf', sha256: 'ab'.repeat(32) } } as unknown as LocalEngine;
const messages = [{ role: 'user' as const, content: 'Agent 1: on the hill.' }];
const compact = (temperature: number): ChatRequest => ({ messages, temperature, numberList: { count: 2, max: 4 } });
const json = (temperature: number): ChatRequest => ({ messages, temperature, responseFormat: { type: 'json_schema', json_schema: { name: 'a', schema: {} } } });

describe('answers that are the same every time', () => {
  it('the local engine: scored compact answers at any temperature, sampled ones at 0 only', () => {
    const scores = new LlamaChatClient(engine);
    expect(answersAlike(scores, compact(0.1))).toBe(true);
    expect(answersAlike(scores, json(0.1))).toBe(false);
    expect(answersAlike(scores, json(0))).toBe(true);
    const sample = new LlamaChatClient(engine, { compact: 'sample' });
    expect(answersAlike(sample, compact(0.1))).toBe(false);
    expect(answersAlike(sample, compact(0))).toBe(true);
  });

  it('the local engine names the model file\'s digest and its decoding', () => {
    expect(new LlamaChatClient(engine).answerIdentity).toBe(`local gemma-3-270m-q4_k_m sha256:${'ab'.repeat(32)} compact:scores`);
    expect(new LlamaChatClient(engine, { compact: 'sample', calibrate: false }).answerIdentity).toContain('compact:sample:raw');
  });

  it('a client that says nothing: temperature 0 alone', () => {
    const server: ChatClient = { model: 'gpt', complete: async () => ({ text: '' }) };
    expect(answersAlike(server, compact(0))).toBe(true);
    expect(answersAlike(server, compact(0.1))).toBe(false);
  });
});
