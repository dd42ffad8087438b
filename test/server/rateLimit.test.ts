import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/server/rateLimit';

/** A limiter on a clock the test moves. */
function limiter(perSecond: number, burst: number) {
  let t = 1_000_000;
  const limit = new RateLimiter(perSecond, burst, () => t);
  return { limit, advance: (ms: number) => void (t += ms) };
}

describe('RateLimiter (token bucket per key)', () => {
  it('allows a burst, then says how long until the next token', () => {
    const { limit, advance } = limiter(0.5, 2);
    expect([limit.take('a'), limit.take('a')]).toEqual([0, 0]);
    expect(limit.take('a')).toBe(2000);
    advance(1500);
    expect(limit.take('a')).toBe(500);
    advance(500);
    expect(limit.take('a')).toBe(0);
    expect(limit.take('a')).toBe(2000);
  });

  it('keeps one bucket per key and never holds more than the burst', () => {
    const { limit, advance } = limiter(1, 2);
    expect([limit.take('a'), limit.take('a'), limit.take('a')].map((w) => w > 0)).toEqual([false, false, true]);
    expect(limit.take('b')).toBe(0);
    advance(60_000);
    expect([limit.take('a'), limit.take('a'), limit.take('a')].map((w) => w > 0)).toEqual([false, false, true]);
  });

  it('refuses settings that could never allow a request', () => {
    expect(() => new RateLimiter(0, 5)).toThrow(/perSecond must be > 0/);
    expect(() => new RateLimiter(1, 0)).toThrow(/burst >= 1/);
  });
});
