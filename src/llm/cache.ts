/**
 * The decision cache: answers addressed by model, prompt and temperature, so a run can be
 * repeated offline and tournaments re-run cheaply. The store is injected: on disk in Node
 * (fileCache.ts), in memory in tests and benchmarks. Browser-safe.
 *
 * Modes: 'use' reads the cache and writes what it misses; 'refresh' always asks the model
 * and overwrites; 'off' neither reads nor writes.
 */
import { sha256Hex } from '../skills/sha256';
import type { ChatRequest } from './chat';

export const CACHE_MODES = ['use', 'refresh', 'off'] as const;
export type CacheMode = (typeof CACHE_MODES)[number];
/** Where neither LLM_CACHE nor a command's flag chooses. */
export const DEFAULT_CACHE_MODE: CacheMode = 'use';

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
  /** Canonical JSON of model, temperature, messages, answer bound, response format and, where asked, the number list. */
  readonly material: string;
  /**
   * The prompt in brief, kept beside the answer on disk so the decisions can teach another
   * model (npm run llm:tune -- --teacher cache:<model>): the system prompt's digest (it is
   * the same for every decision of a match) and the state's words.
   */
  readonly prompt: { readonly system: string; readonly user: string };
}

/** A short digest of a prompt's text (the first 16 hex digits of its sha256). */
export function promptDigest(text: string): string {
  return sha256Hex(new TextEncoder().encode(text)).slice(0, 16);
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
    // The numbers a compact answer may hold decide it too (the proxy's callers choose them).
    ...(request.numberList ? { numberList: [request.numberList.count, request.numberList.max] } : {}),
  });
  const system = request.messages.find((m) => m.role === 'system')?.content ?? '';
  const user = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  return { model, temperature: request.temperature, material, prompt: { system: promptDigest(system), user } };
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
