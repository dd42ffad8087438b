/**
 * The decision cache: answers addressed by model, prompt and temperature, so a run can be
 * repeated offline and tournaments re-run cheaply. The store is injected: on disk in Node
 * (fileCache.ts), in memory in tests and benchmarks. Browser-safe.
 *
 * Modes: 'use' reads the cache and writes what it misses; 'refresh' always asks the model
 * and overwrites; 'off' neither reads nor writes.
 */
import type { ChatRequest } from './chat';

export const CACHE_MODES = ['use', 'refresh', 'off'] as const;
export type CacheMode = (typeof CACHE_MODES)[number];

export function isCacheMode(value: string): value is CacheMode {
  return (CACHE_MODES as readonly string[]).includes(value);
}

/** What is kept of an answer: enough to apply it again, at the same delay in realtime runs. */
export interface CachedAnswer {
  readonly text: string;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  /** The original call's latency; realtime runs apply a cached answer after as many ticks. */
  readonly latencyMs: number;
}

/** The address of an answer: the model and the canonical text of everything that shapes it. */
export interface CacheKey {
  readonly model: string;
  readonly temperature: number;
  /** Canonical JSON of model, temperature, messages, answer bound and response format. */
  readonly material: string;
}

export interface DecisionCacheStore {
  get(key: CacheKey): CachedAnswer | undefined;
  set(key: CacheKey, answer: CachedAnswer): void;
}

export function cacheKey(model: string, request: ChatRequest): CacheKey {
  const material = JSON.stringify({
    model,
    temperature: request.temperature,
    maxTokens: request.maxTokens ?? null,
    responseFormat: request.responseFormat ?? null,
    messages: request.messages.map((m) => [m.role, m.content]),
  });
  return { model, temperature: request.temperature, material };
}

/** An in-memory store (tests, benchmarks, one page session). */
export class MemoryCacheStore implements DecisionCacheStore {
  private readonly map = new Map<string, CachedAnswer>();

  get size(): number {
    return this.map.size;
  }

  get(key: CacheKey): CachedAnswer | undefined {
    return this.map.get(key.material);
  }

  set(key: CacheKey, answer: CachedAnswer): void {
    this.map.set(key.material, answer);
  }
}
