import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheKey } from '../../src/llm';
import { CACHE_FILE_NAME, FileCacheStore } from '../../src/llm/node/fileCache';

const dir = mkdtempSync(join(tmpdir(), 'hillmind-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const request = (content: string, temperature = 0.1) => ({ messages: [{ role: 'user' as const, content }], temperature });

describe('the decision cache on disk', () => {
  it('keeps answers across processes as JSON Lines addressed by a hash of model, prompt and temperature', () => {
    const store = FileCacheStore.at(dir);
    expect(FileCacheStore.at(dir)).toBe(store);
    store.set(cacheKey('m', request('a')), { text: '1,3', latencyMs: 123.4, promptTokens: 300, completionTokens: 3 });
    store.set(cacheKey('m', request('b')), { text: '2,2', latencyMs: 50 });
    const file = join(dir, CACHE_FILE_NAME);
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ model: 'm', temperature: 0.1, text: '1,3', latencyMs: 123.4, promptTokens: 300 });
    expect(lines[0]!.key).toMatch(/^[0-9a-f]{64}$/);

    // Another process reads the file: the same answers, nothing else.
    const fresh = new FileCacheStore(file);
    expect(fresh.get(cacheKey('m', request('a')))).toEqual({ text: '1,3', latencyMs: 123.4, promptTokens: 300, completionTokens: 3 });
    expect(fresh.get(cacheKey('m', request('a', 0.2)))).toBeUndefined();
    expect(fresh.get(cacheKey('other', request('a')))).toBeUndefined();
    expect(fresh.size).toBe(2);
  });

  it('later lines win (refresh appends) and unreadable lines are skipped', () => {
    const file = join(dir, 'sub', CACHE_FILE_NAME);
    const store = new FileCacheStore(file);
    store.set(cacheKey('m', request('x')), { text: '1,1', latencyMs: 1 });
    store.set(cacheKey('m', request('x')), { text: '3,2', latencyMs: 2 });
    appendFileSync(file, 'not json\n{"key":"short"}\n');
    const fresh = new FileCacheStore(file);
    expect(fresh.get(cacheKey('m', request('x')))?.text).toBe('3,2');
    expect(fresh.skippedLines).toBe(2);
  });
});

describe('the decision cache address and bound', () => {
  it('tells apart requests that differ only in the numbers a compact answer may hold', () => {
    const compact = (count: number, max: number) => ({ ...request('same'), numberList: { count, max } });
    expect(cacheKey('m', compact(2, 4)).material).not.toBe(cacheKey('m', compact(3, 4)).material);
    expect(cacheKey('m', compact(2, 4)).material).not.toBe(cacheKey('m', compact(2, 3)).material);
    expect(cacheKey('m', compact(2, 4)).material).toBe(cacheKey('m', compact(2, 4)).material);
  });

  it('a bounded store forgets the least recently used and rewrites its file at twice the bound', () => {
    const file = join(dir, 'bounded', CACHE_FILE_NAME);
    const store = new FileCacheStore(file, { maxEntries: 2 });
    store.set(cacheKey('m', request('a')), { text: 'a', latencyMs: 1 });
    store.set(cacheKey('m', request('b')), { text: 'b', latencyMs: 1 });
    expect(store.get(cacheKey('m', request('a')))?.text).toBe('a');
    store.set(cacheKey('m', request('c')), { text: 'c', latencyMs: 1 });
    expect(store.size).toBe(2);
    expect(store.get(cacheKey('m', request('b')))).toBeUndefined();
    store.set(cacheKey('m', request('d')), { text: 'd', latencyMs: 1 });
    // Four lines written: the file was rewritten with the two it holds.
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
    const fresh = new FileCacheStore(file, { maxEntries: 2 });
    expect([fresh.get(cacheKey('m', request('c')))?.text, fresh.get(cacheKey('m', request('d')))?.text]).toEqual(['c', 'd']);
  });
});
