/**
 * The decision cache on disk (Node only): one JSON Lines file, one answer per line,
 * appended as answers come and read once per process. Later lines win, so 'refresh'
 * simply appends. Several processes (tournament workers) may append to the same file.
 *
 * Line schema: {"key": sha256 hex of the key material, "model", "temperature", "text",
 * "promptTokens"?, "completionTokens"?, "latencyMs", "at": ISO time, "system"?: the system
 * prompt's digest (cache.ts promptDigest), "user"?: the state's words}. The last two let
 * the decisions teach another model (readCachedPrompts).
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import type { CacheKey, CachedAnswer, DecisionCacheStore } from '../cache';

export const CACHE_FILE_NAME = 'decisions.jsonl';

const line = z.object({
  key: z.string().regex(/^[0-9a-f]{64}$/),
  model: z.string(),
  temperature: z.number(),
  text: z.string(),
  promptTokens: z.number().optional(),
  completionTokens: z.number().optional(),
  latencyMs: z.number().min(0),
  system: z.string().optional(),
  user: z.string().optional(),
});

/** Each non-blank line of a cache file, checked: its record, or null where it cannot be read. None when there is no file. */
function* cacheLines(file: string): Generator<z.infer<typeof line> | null> {
  if (!existsSync(file)) return;
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (!text.trim()) continue;
    let parsed;
    try {
      parsed = line.safeParse(JSON.parse(text));
    } catch {
      parsed = null;
    }
    yield parsed?.success ? parsed.data : null;
  }
}

const hashOf = (key: CacheKey) => createHash('sha256').update(key.material).digest('hex');

export class FileCacheStore implements DecisionCacheStore {
  private static readonly open = new Map<string, FileCacheStore>();
  private readonly map = new Map<string, CachedAnswer>();
  /** Lines that could not be read (skipped). */
  readonly skippedLines: number = 0;

  /** The store of `dir`, shared within the process. */
  static at(dir: string): FileCacheStore {
    const file = resolve(dir, CACHE_FILE_NAME);
    let store = FileCacheStore.open.get(file);
    if (!store) FileCacheStore.open.set(file, (store = new FileCacheStore(file)));
    return store;
  }

  constructor(readonly file: string) {
    let skipped = 0;
    for (const record of cacheLines(file)) {
      if (!record) {
        skipped++;
        continue;
      }
      const { key, model: _model, temperature: _temperature, system: _system, user: _user, ...answer } = record;
      this.map.set(key, answer);
    }
    this.skippedLines = skipped;
  }

  get size(): number {
    return this.map.size;
  }

  get(key: CacheKey): CachedAnswer | undefined {
    return this.map.get(hashOf(key));
  }

  set(key: CacheKey, answer: CachedAnswer): void {
    const hash = hashOf(key);
    this.map.set(hash, answer);
    mkdirSync(dirname(this.file), { recursive: true });
    const record = { key: hash, model: key.model, temperature: key.temperature, ...answer, at: new Date().toISOString(), system: key.prompt.system, user: key.prompt.user };
    appendFileSync(this.file, `${JSON.stringify(record)}\n`);
  }
}

/** A cached decision with its prompt in brief: what a teacher reads. */
export interface CachedPrompt {
  /** The system prompt's digest (cache.ts promptDigest). */
  readonly system: string;
  /** The state's words (the user message). */
  readonly user: string;
  readonly text: string;
}

/**
 * The decisions `model` made that the cache in `dir` holds with their prompts, the latest
 * per prompt (lines written before prompts were kept are passed over).
 */
export function readCachedPrompts(dir: string, model: string): CachedPrompt[] {
  const latest = new Map<string, CachedPrompt>();
  for (const record of cacheLines(resolve(dir, CACHE_FILE_NAME))) {
    if (!record || record.model !== model || record.system === undefined || record.user === undefined) continue;
    latest.set(record.key, { system: record.system, user: record.user, text: record.text });
  }
  return [...latest.values()];
}

export function defaultCacheDir(root = process.cwd()): string {
  return join(root, '.cache', 'llm');
}
