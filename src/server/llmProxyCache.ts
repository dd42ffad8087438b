/**
 * The proxy's decision cache: a prompt the server's model has answered is answered again
 * from what it said, without the model. It reuses the Node decision cache (src/llm/cache.ts
 * addresses an answer by model, messages, temperature, answer bound, response format and
 * number list; src/llm/fileCache.ts keeps it as JSON Lines), with the model part of the
 * address being the client's answer identity (the model's and the adapter's digests, the
 * decoding) and a bound in memory and on disk.
 *
 * Only answers the model gives the same every time are kept and served (answersAlike: at
 * temperature 0, and the local engine's scored compact answers at any temperature), so an
 * answer from the cache is the one the model would give, to the bit. The Node cache (a
 * tournament's LLM_CACHE) also serves sampled answers: it replays a run; the server answers
 * many pages, and a sampled answer must stay a sample.
 *
 * LLM_CACHE decides as for every Node process: use (default) reads and writes, refresh
 * always asks the model and keeps its answer, off neither. The file lives in
 * <LLM_CACHE_DIR>/server/ (.cache/llm/server/decisions.jsonl by default). A file that
 * cannot be read at all leaves the server without a cache, saying why in its status; lines
 * that cannot be read are set aside and the file rebuilt from the rest.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { holdLock, thisProcess } from '../tournament/lock';
import { type CacheMode, type CachedAnswer, type ChatClient, type ChatRequest, type ChatResponse, type LlmCacheStatus, type LlmConnection, answersAlike, cacheKey } from '../llm';
import { CACHE_FILE_NAME, FileCacheStore } from '../llm/node/fileCache';

/**
 * Answers the server keeps, in memory and on disk (the file holds at most twice as many
 * lines before it is rewritten). An entry is about 1 KB (the state's words beside the
 * answer), so 20,000 is about 20 MB in memory and 40 MB on disk.
 */
export const PROXY_CACHE_MAX_ENTRIES = 20_000;

/** The folder under the decision cache's (LLM_CACHE_DIR) that holds the server's. */
export const PROXY_CACHE_FOLDER = 'server';

export interface ProxyCacheOptions {
  readonly mode: CacheMode;
  /** The decision cache's folder (LLM_CACHE_DIR); the server's file is in its server/ folder. */
  readonly dir: string;
  /** Default PROXY_CACHE_MAX_ENTRIES. */
  readonly maxEntries?: number;
}

export class ProxyDecisionCache {
  private hits = 0;
  private misses = 0;

  private constructor(
    private readonly mode: CacheMode,
    private readonly store: FileCacheStore | null,
    private readonly maxEntries: number,
    private readonly problem?: string,
    /** The lock this process holds on the file, released by close(). */
    private lock?: Releasable,
  ) {}

  /** Let another process hold the file (the lock goes; what was kept stays on disk). */
  close(): void {
    this.lock?.release();
    this.lock = undefined;
  }

  /**
   * The server's cache in `dir`; never throws: a file that cannot be read, or that another
   * live process holds (a server, or npm run llm:warm: two writers would drop each other's
   * lines when the file is rewritten), leaves a cache that keeps nothing, and says why.
   */
  static open(options: ProxyCacheOptions): ProxyDecisionCache {
    const maxEntries = options.maxEntries ?? PROXY_CACHE_MAX_ENTRIES;
    if (options.mode === 'off') return new ProxyDecisionCache('off', null, maxEntries);
    const file = join(options.dir, PROXY_CACHE_FOLDER, CACHE_FILE_NAME);
    const held = holdFile(file);
    if (typeof held === 'string') return new ProxyDecisionCache(options.mode, null, maxEntries, held);
    try {
      return new ProxyDecisionCache(options.mode, new FileCacheStore(file, { maxEntries }), maxEntries, undefined, held);
    } catch (err) {
      return new ProxyDecisionCache(options.mode, null, maxEntries, `the decision cache ${file} cannot be read (${(err as Error).message}): move it away, and the server starts a new one`);
    }
  }

  /** The answer kept for this request, if the cache serves it (counted as a hit or a miss). */
  answer(connection: LlmConnection, request: ChatRequest): ChatResponse | undefined {
    if (!this.store || !answersAlike(connection.client, request)) return undefined;
    const kept = this.mode === 'use' ? this.store.get(keyOf(connection, request)) : undefined;
    if (!kept) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    const { latencyMs: _latencyMs, ...answer } = kept;
    return { ...answer, model: connection.client.model };
  }

  /** Keep the model's answer to a request whose answer is always the same; a cache that cannot be written costs only later calls. */
  keep(connection: LlmConnection, request: ChatRequest, response: ChatResponse, latencyMs: number): void {
    if (!this.store || !answersAlike(connection.client, request)) return;
    const answer: CachedAnswer = {
      text: response.text,
      latencyMs,
      ...(response.promptTokens !== undefined ? { promptTokens: response.promptTokens } : {}),
      ...(response.completionTokens !== undefined ? { completionTokens: response.completionTokens } : {}),
    };
    try {
      this.store.set(keyOf(connection, request), answer);
    } catch {
      // The disk is full or the folder gone: the answer is still given, and kept in memory.
    }
  }

  status(): LlmCacheStatus {
    const asked = this.hits + this.misses;
    return {
      mode: this.mode,
      entries: this.store?.size ?? 0,
      maxEntries: this.maxEntries,
      hits: this.hits,
      misses: this.misses,
      hitRate: asked > 0 ? this.hits / asked : null,
      ...(this.store && this.store.skippedLines > 0 ? { damagedLines: this.store.skippedLines } : {}),
      ...(this.problem ? { problem: this.problem } : {}),
    };
  }
}

/** The model part of an answer's address: what the client says decides its answers, else its name and who serves it. */
function identityOf(client: ChatClient, provider: string): string {
  return client.answerIdentity ?? `${client.model} via ${provider}`;
}

const keyOf = (connection: LlmConnection, request: ChatRequest) => cacheKey(identityOf(connection.client, connection.provider), request);

/** Beside the cache file, the lock of the process that writes it (tournament/lock.ts). */
const lockPathOf = (file: string) => `${file}.lock`;

/** A lock this process holds on the cache file. */
interface Releasable {
  release(): void;
}

class AlreadyHeld extends Error {}

/** Take the cache file for this process (a stale lock is taken over): the lock, or why not. */
function holdFile(file: string): Releasable | string {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const env = thisProcess();
    return holdLock(lockPathOf(file), env, (holder) =>
      // This process holds it already (a cache opened again, as a restarted server's would be): one writer still.
      holder.pid === env.pid && holder.host === env.host
        ? new AlreadyHeld()
        : new Error(`the decision cache ${file} is in use by process ${holder.pid} on ${holder.host} (a server, or npm run llm:warm): stop it first, or give this one another LLM_CACHE_DIR`),
    );
  } catch (err) {
    if (err instanceof AlreadyHeld) return { release: () => {} };
    return (err as Error).message;
  }
}
