import { describe, expect, it } from 'vitest';
import { tokenBucketStore } from '../../src/server/rateLimit';

/** The store @fastify/rate-limit asks, on a clock the test moves: ms to wait (0: allowed) for each request. */
function limiter(perSecond: number, burst: number) {
  let t = 1_000_000;
  const Store = tokenBucketStore(() => t);
  const store = new Store({});
  const timeWindow = (burst / perSecond) * 1000;
  const take = (key: string): number => {
    let result: { current: number; ttl: number } | undefined;
    store.incr(key, (err, r) => {
      if (err) throw err;
      result = r;
    }, timeWindow, burst);
    return result!.current > burst ? result!.ttl : 0;
  };
  return { take, store, advance: (ms: number) => void (t += ms) };
}

describe('the rate limits (a token bucket per key, for @fastify/rate-limit)', () => {
  it('allows a burst, then says how long until the next token', () => {
    const { take, advance } = limiter(0.5, 2);
    expect([take('a'), take('a')]).toEqual([0, 0]);
    expect(take('a')).toBe(2000);
    advance(1500);
    expect(take('a')).toBe(500);
    advance(500);
    expect(take('a')).toBe(0);
    expect(take('a')).toBe(2000);
  });

  it('keeps one bucket per key and never holds more than the burst', () => {
    const { take, advance } = limiter(1, 2);
    expect([take('a'), take('a'), take('a')].map((w) => w > 0)).toEqual([false, false, true]);
    expect(take('b')).toBe(0);
    advance(60_000);
    expect([take('a'), take('a'), take('a')].map((w) => w > 0)).toEqual([false, false, true]);
  });

  it('keeps each route its own buckets', () => {
    const { take, store } = limiter(1, 1);
    expect(take('a')).toBe(0);
    const other = store.child({} as Parameters<typeof store.child>[0]);
    let allowed = false;
    other.incr('a', (_err, r) => (allowed = r!.current <= 1), 1000, 1);
    expect(allowed).toBe(true);
  });

  it('refuses settings that could never allow a request', () => {
    const { store } = limiter(1, 1);
    const errors: string[] = [];
    store.incr('a', (err) => errors.push(err!.message), 0, 5);
    store.incr('a', (err) => errors.push(err!.message), 1000, 0);
    expect(errors).toEqual(['a rate limit needs a time window > 0 and max >= 1, got 0 ms and 5', 'a rate limit needs a time window > 0 and max >= 1, got 1000 ms and 0']);
  });
});
