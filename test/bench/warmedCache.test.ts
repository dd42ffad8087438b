/**
 * What warming the server's decision cache buys (bench llmProxy.ts warmedCacheRows): the
 * share of a game's decisions a cache of every game before it already knows.
 */
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/llm';
import { warmedCacheRows } from '../../src/bench/llmProxy';

const ask = (content: string): ChatRequest => ({ messages: [{ role: 'user', content }], temperature: 0 });

describe("the warmed cache's rows", () => {
  it("count a game's decisions known from the games before it and its own earlier ones", () => {
    // Games 1-10 ask a and b; games 11-20 ask a, c, c, d (c and d new in game 11, known after).
    const games = [...Array.from({ length: 10 }, () => [ask('a'), ask('b')]), ...Array.from({ length: 10 }, () => [ask('a'), ask('c'), ask('c'), ask('d')])];
    const rows = warmedCacheRows(games);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.name).toBe('proxy cache warmed by 10 games: decisions of games 11-20 known before asked');
    // Game 11: a and the second c known (2 of 4); games 12-20: all 4.
    expect(rows[0]!.value).toBeCloseTo((100 * (0.5 + 9)) / 10, 10);
  });
});
