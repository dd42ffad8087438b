/**
 * Several local engines behind one client (llm/node/enginePool.ts, LLM_ENGINES): requests
 * go to the engine with the fewest in flight, and an answer is the same whichever engine
 * gives it, so a seeded match repeats with any number of engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatClient, type ChatRequest, type ChatResponse, type LlmConnection, buildRequest } from '../../src/llm';
import { EnginePoolClient } from '../../src/llm/node/enginePool';
import { nodeLlmAccess } from '../../src/llm/node';
import { parseLlmSpec } from '../../src/llm/settings';
import { teamSituation } from '../../src/sim';
import { sampleWorlds } from '../../src/bench/strategist';
import { describeWithLocalModel, requireLocalModel } from '../helpers/localModel';

/** An engine that answers when told to, naming itself. */
function heldEngine(name: string) {
  const waiting: (() => void)[] = [];
  const engine: ChatClient & { readonly asked: number; answerAll(): void; closed: boolean } = {
    model: 'm',
    asked: 0,
    closed: false,
    complete: (request: ChatRequest): Promise<ChatResponse> => {
      (engine as { asked: number }).asked++;
      return new Promise((resolve) => waiting.push(() => resolve({ text: `${name}:${request.messages[0]!.content}`, model: 'm' })));
    },
    promptTokens: (request) => request.messages[0]!.content.length,
    answerAll: () => waiting.splice(0).forEach((answer) => answer()),
    close: async () => {
      engine.closed = true;
    },
  };
  return engine;
}

const ask = (content: string): ChatRequest => ({ messages: [{ role: 'user', content }], temperature: 0 });
const never = new AbortController().signal;

describe('an engine pool', () => {
  it('gives each request to the engine with the fewest in flight, the first on a tie, and closes them all', async () => {
    const engines = [heldEngine('a'), heldEngine('b'), heldEngine('c')];
    const pool = new EnginePoolClient(engines);
    const first = [pool.complete(ask('1'), never), pool.complete(ask('2'), never), pool.complete(ask('3'), never), pool.complete(ask('4'), never)];
    expect(engines.map((e) => e.asked)).toEqual([2, 1, 1]);
    engines[1]!.answerAll();
    expect(await first[1]).toEqual({ text: 'b:2', model: 'm' });
    // b is free again: the next goes there, not to a or c.
    const fifth = pool.complete(ask('5'), never);
    expect(engines.map((e) => e.asked)).toEqual([2, 2, 1]);
    engines.forEach((e) => e.answerAll());
    expect((await Promise.all([...first, fifth])).map((r) => r.text)).toEqual(['a:1', 'b:2', 'c:3', 'a:4', 'b:5']);
    expect(pool.promptTokens(ask('four'))).toBe(4);
    await pool.close();
    expect(engines.every((e) => e.closed)).toBe(true);
  });

  it('needs an engine', () => {
    expect(() => new EnginePoolClient([])).toThrow('an engine pool needs at least one engine');
  });
});

describeWithLocalModel('two engines')('two local engines (LLM_ENGINES=2)', () => {
  let one: LlmConnection;
  let two: LlmConnection;
  const env = { LLM_CACHE: 'off', LLM_SEQUENCES: '2', LLM_THREADS: '1' };
  const requests = sampleWorlds(12, 700).map((s) => buildRequest(teamSituation(s.world, s.team), s.current, { format: 'terse', temperature: 0.1 }));

  beforeAll(async () => {
    requireLocalModel();
    one = await nodeLlmAccess({ spec: parseLlmSpec(env) }).connect();
    two = await nodeLlmAccess({ spec: parseLlmSpec({ ...env, LLM_ENGINES: '2' }) }).connect();
  }, 120_000);
  afterAll(async () => {
    await one?.client.close?.();
    await two?.client.close?.();
  });

  it('answer requests asked all at once as one engine answers them one by one', async () => {
    expect(two.client).toBeInstanceOf(EnginePoolClient);
    expect(two.provider).toMatch(/^local llama\.cpp \(CPU, 2 engines x 1 thread\)$/);
    const alone: string[] = [];
    for (const request of requests) alone.push((await one.client.complete(request, never)).text);
    const together = await Promise.all(requests.map((request) => two.client.complete(request, never)));
    expect(together.map((r) => r.text)).toEqual(alone);
  }, 120_000);
});
