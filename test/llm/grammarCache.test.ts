/**
 * The local engine's compiled grammars are bounded: a client sending many distinct JSON
 * schemas cannot grow the process (300 schemas were seen to add 770 MiB when every grammar was kept).
 * Counted, not measured: a fake grammar factory counts what is made, the cache what it holds
 * and dropped.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { GRAMMAR_CACHE_SIZE, GrammarCache, LocalEngine } from '../../src/llm/node/localEngine';
import { LruMap } from '../../src/llm/lruMap';
import { HAVE_LOCAL_MODEL, IN_CI, LOCAL_MODEL_PATH } from '../helpers/localModel';

/** A factory of stand-in grammars that counts what it made, by key. */
function countingFactory() {
  const made: string[] = [];
  return { made, make: (key: string) => () => { made.push(key); return Promise.resolve({ key }); } };
}

describe('the grammar cache', () => {
  it('holds at most its capacity over 300 distinct schemas, dropping the least recently used', async () => {
    const cache = new GrammarCache<{ key: string }>();
    const { made, make } = countingFactory();
    for (let i = 0; i < 300; i++) {
      const key = `schema ${i}`;
      await cache.get(key, make(key));
      // The page's own schema, asked between the others, is never dropped.
      await cache.get('page', make('page'));
    }
    expect(cache.size).toBe(GRAMMAR_CACHE_SIZE);
    expect(cache.evictions).toBe(300 + 1 - GRAMMAR_CACHE_SIZE);
    expect(made.filter((k) => k === 'page')).toHaveLength(1);
    expect(made).toHaveLength(301);
    // The most recent schemas are held; an old one is made again.
    await cache.get('schema 299', make('schema 299'));
    await cache.get('schema 0', make('schema 0'));
    expect(made.filter((k) => k === 'schema 299')).toHaveLength(1);
    expect(made.filter((k) => k === 'schema 0')).toHaveLength(2);
  });

  it('makes a grammar once per key while it is held, and forgets one that failed to compile', async () => {
    const cache = new GrammarCache<string>(2);
    let calls = 0;
    const failing = () => { calls++; return Promise.reject(new Error('bad schema')); };
    await expect(cache.get('bad', failing)).rejects.toThrow('bad schema');
    await expect(cache.get('bad', failing)).rejects.toThrow('bad schema');
    expect(calls).toBe(2);
    expect(cache.size).toBe(0);
    const first = cache.get('good', () => Promise.resolve('g'));
    expect(cache.get('good', () => Promise.resolve('other'))).toBe(first);
  });

  it('LruMap refuses a capacity that is no whole number of at least 1', () => {
    expect(() => new LruMap(0)).toThrow('LruMap: the capacity must be a whole number of at least 1, got 0');
    expect(() => new LruMap(1.5)).toThrow(/got 1\.5/);
  });
});

describe.runIf(HAVE_LOCAL_MODEL || IN_CI)('the engine keeps its grammars bounded', () => {
  let engine: LocalEngine | undefined;
  afterAll(() => engine?.dispose());

  it('300 distinct schemas through the engine leave at most GRAMMAR_CACHE_SIZE grammars held', async () => {
    engine = await LocalEngine.load({ gguf: LOCAL_MODEL_PATH, model: 'test', threads: 1, sequences: 1, contextSize: 256, help: '' });
    const { made, make } = countingFactory();
    for (let i = 0; i < 300; i++) await engine.grammar(`json:${i}`, make(`json:${i}`) as never);
    expect(made).toHaveLength(300);
    expect((engine as unknown as { grammars: { size: number } }).grammars.size).toBe(GRAMMAR_CACHE_SIZE);
  }, 60_000);
});
