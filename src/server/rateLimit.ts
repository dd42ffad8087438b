/**
 * The rate limits of the API (the LLM proxy's requests, the study's new sessions and
 * episodes) run on @fastify/rate-limit, with this store: a token bucket per client key on
 * a clock passed in. A bucket holds at most `max` tokens and refills over `timeWindow`;
 * each request takes one. The plugin's own store counts requests in fixed windows on the
 * system clock: a client could send twice its allowance across a window's edge, and a
 * refused client would wait out the whole window instead of one token's time (10 s for
 * the study's six episodes a minute, not up to 60). The clock lets tests move time
 * instead of waiting for it.
 */
import type { FastifyInstance } from 'fastify';
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';

/** Buckets kept before the refilled ones are dropped (a flood of addresses cannot grow memory). */
const MAX_BUCKETS = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

/** What a bucket says to one request: 0 ms when it may go (a token is taken), else ms until the next token. */
export function takeToken(buckets: Map<string, Bucket>, key: string, max: number, timeWindowMs: number, t: number): { readonly waitMs: number; readonly tokens: number } {
  const perSecond = max / (timeWindowMs / 1000);
  const bucket = buckets.get(key) ?? { tokens: max, at: t };
  bucket.tokens = Math.min(max, bucket.tokens + ((t - bucket.at) / 1000) * perSecond);
  bucket.at = t;
  buckets.set(key, bucket);
  if (buckets.size > MAX_BUCKETS) {
    for (const [k, b] of buckets) if (t - b.at > timeWindowMs) buckets.delete(k);
  }
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return { waitMs: 0, tokens: bucket.tokens };
  }
  return { waitMs: Math.ceil(((1 - bucket.tokens) / perSecond) * 1000), tokens: bucket.tokens };
}

/** A store for @fastify/rate-limit: token buckets on `now` (ms), one set per route. */
export function tokenBucketStore(now: () => number = Date.now): FastifyRateLimitStoreCtor {
  class TokenBuckets implements FastifyRateLimitStore {
    private readonly buckets = new Map<string, Bucket>();

    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number, max: number): void {
      if (!(timeWindow > 0) || !(max >= 1)) {
        callback(new Error(`a rate limit needs a time window > 0 and max >= 1, got ${timeWindow} ms and ${max}`));
        return;
      }
      const { waitMs, tokens } = takeToken(this.buckets, key, max, timeWindow, now());
      // The plugin refuses past `max` and answers Retry-After from `ttl`.
      if (waitMs > 0) callback(null, { current: max + 1, ttl: waitMs });
      else callback(null, { current: max - Math.floor(tokens), ttl: Math.ceil(((max - tokens) / max) * timeWindow) });
    }

    child(): FastifyRateLimitStore {
      return new TokenBuckets();
    }
  }
  return TokenBuckets;
}

/**
 * Register the plugin in `app`'s context (routes then set config.rateLimit, or call
 * app.createRateLimit): token buckets on `now`, refusals answered by the context's error
 * handler, Retry-After the only header.
 */
export async function useRateLimits(app: FastifyInstance, now: () => number = Date.now): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    store: tokenBucketStore(now),
    addHeaders: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false, 'retry-after': true },
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
  });
}
