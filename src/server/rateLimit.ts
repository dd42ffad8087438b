/**
 * One rate limiter for every route that needs one (the LLM proxy's requests, the study
 * API's new sessions): a token bucket per client key. A bucket holds at most `burst`
 * tokens and gains `perSecond` a second; each request takes one. The clock is passed in,
 * so tests move time instead of waiting for it.
 */

/** Buckets kept before idle ones are dropped (a flood of addresses cannot grow memory). */
const MAX_BUCKETS = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /**
   * @param perSecond tokens gained a second (the sustained rate; 0.5 is 30 a minute)
   * @param burst the most requests allowed at once (a full bucket)
   * @param now the clock in milliseconds (default Date.now)
   */
  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(perSecond > 0) || !(burst >= 1)) throw new Error(`RateLimiter: perSecond must be > 0 and burst >= 1, got ${perSecond} and ${burst}`);
  }

  /** 0 when allowed (a token is taken), else milliseconds until the next token. */
  take(key: string): number {
    const t = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: t };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((t - bucket.at) / 1000) * this.perSecond);
    bucket.at = t;
    this.buckets.set(key, bucket);
    if (this.buckets.size > MAX_BUCKETS) this.prune(t);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - bucket.tokens) / this.perSecond) * 1000);
  }

  /** Drop the buckets that have refilled (forgetting them changes nothing). */
  private prune(t: number): void {
    for (const [key, b] of this.buckets) if (t - b.at > (this.burst / this.perSecond) * 1000) this.buckets.delete(key);
  }
}
