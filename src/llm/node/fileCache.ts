/**
 * The decision cache on disk (Node only): one JSON Lines file, one answer per line,
 * appended as answers come and read once per process. Later lines win, so 'refresh'
 * simply appends. Several processes (tournament workers) may append to the same file.
 *
 * A bounded store (maxEntries: the server's, llmProxyCache.ts) belongs to one process: it
 * forgets the least recently used answer past its bound, and rewrites its file with what it
 * holds when the file has grown to twice the bound, or when it was read with lines that
 * could not be read (those are first copied aside to <file>.damaged, so nothing is lost).
 *
 * Line schema: {"key": sha256 hex of the key material, "model", "temperature", "text",
 * "promptTokens"?, "completionTokens"?, "latencyMs", "at": ISO time, "system"?: the system
 * prompt's digest (cache.ts promptDigest), "user"?: the state's words}. The last two let
 * the decisions teach another model (readCachedPrompts).
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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
  at: z.string().optional(),
});
type CacheLine = z.infer<typeof line>;

/** Each non-blank line of a cache file, checked: its record, or null where it cannot be read. None when there is no file. */
function* cacheLines(file: string): Generator<CacheLine | null> {
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

export interface FileCacheOptions {
  /** Answers kept, in memory and (up to twice as many lines) on disk; default unbounded. */
  readonly maxEntries?: number;
}

export class FileCacheStore implements DecisionCacheStore {
  private static readonly open = new Map<string, FileCacheStore>();
  /** The records by key hash, least recently used first. */
  private readonly records = new Map<string, CacheLine>();
  /** Lines that could not be read (skipped; a bounded store set them aside in <file>.damaged). */
  readonly skippedLines: number = 0;
  readonly maxEntries: number;
  /** Lines the file holds now. */
  private lines = 0;

  /** The store of `dir`, shared within the process. */
  static at(dir: string): FileCacheStore {
    const file = resolve(dir, CACHE_FILE_NAME);
    let store = FileCacheStore.open.get(file);
    if (!store) FileCacheStore.open.set(file, (store = new FileCacheStore(file)));
    return store;
  }

  /** Reads `file` (throws where it cannot be read at all: a folder, no permission). */
  constructor(
    readonly file: string,
    options: FileCacheOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? Infinity;
    let skipped = 0;
    for (const record of cacheLines(file)) {
      this.lines++;
      if (record) this.remember(record);
      else skipped++;
    }
    this.skippedLines = skipped;
    if (!this.bounded) return;
    // The whole file as it was, after any set aside before (an earlier damage is kept too).
    if (skipped > 0) appendFileSync(`${file}.damaged`, readFileSync(file));
    if (skipped > 0 || this.lines > this.records.size) this.rewrite();
  }

  get size(): number {
    return this.records.size;
  }

  private get bounded(): boolean {
    return Number.isFinite(this.maxEntries);
  }

  get(key: CacheKey): CachedAnswer | undefined {
    const record = this.records.get(hashOf(key));
    if (!record) return undefined;
    if (this.bounded) this.remember(record);
    const { key: _key, model: _model, temperature: _temperature, system: _system, user: _user, at: _at, ...answer } = record;
    return answer;
  }

  set(key: CacheKey, answer: CachedAnswer): void {
    const record = { key: hashOf(key), model: key.model, temperature: key.temperature, ...answer, at: new Date().toISOString(), system: key.prompt.system, user: key.prompt.user };
    this.remember(record);
    mkdirSync(dirname(this.file), { recursive: true });
    appendFileSync(this.file, `${JSON.stringify(record)}\n`);
    this.lines++;
    if (this.lines >= 2 * this.maxEntries) this.rewrite();
  }

  /** Keep `record` as the most recently used, forgetting the least recently used past the bound. */
  private remember(record: CacheLine): void {
    this.records.delete(record.key);
    this.records.set(record.key, record);
    for (const oldest of this.records.keys()) {
      if (this.records.size <= this.maxEntries) break;
      this.records.delete(oldest);
    }
  }

  /** Write the file afresh with what the store holds (whole, or not at all: a new file renamed over the old). */
  private rewrite(): void {
    mkdirSync(dirname(this.file), { recursive: true });
    const next = `${this.file}.next`;
    writeFileSync(next, [...this.records.values()].map((r) => `${JSON.stringify(r)}\n`).join(''));
    renameSync(next, this.file);
    this.lines = this.records.size;
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
