/**
 * The page's chat client: it asks the product's own server (POST /api/llm), which holds the
 * key and talks to the model. No SDK, no Node modules, no key: only fetch.
 */
import { type LlmAccess, LlmUnavailable, type StrategistSettings, lazyLlmAccess, strategistSettingsOf } from './access';
import { type CallFailureKind, CALL_FAILURE_KINDS, type ChatClient, ChatError, type ChatRequest, type ChatResponse, chatResponseSchema, parseRetryAfter } from './chat';
import { EVENT_TRIGGERS, type EventTrigger, type TimingMode } from './timing';
import type { AnswerFormat } from './prompt';
import type { CacheMode } from './cache';
import { pct } from '../report/format';
import { countOf } from '../sim';

export const LLM_PROXY_PATH = '/api/llm';
export const LLM_STATUS_PATH = '/api/llm/status';

/** What GET /api/llm/status says (never the key). */
export interface LlmStatus {
  readonly configured: boolean;
  readonly model?: string;
  /** Who serves the model: a server (openai-compatible <address>) or the local engine. */
  readonly provider?: string;
  readonly baseUrl?: string;
  readonly keySet?: boolean;
  readonly format?: AnswerFormat;
  readonly temperature?: number;
  readonly timeoutMs?: number;
  readonly rateHz?: number;
  readonly events?: readonly string[];
  /** Which skills the model's choices run: the trained ones or the scripted references. */
  readonly skills?: 'rl' | 'scripted';
  /** The server's decision cache (src/server/llmProxyCache.ts), where it has one. */
  readonly cache?: LlmCacheStatus;
  /** Why it is not available, and how to configure one. */
  readonly error?: string;
  readonly help?: string;
}

/** What the server's status says of its decision cache (the study's progress page shows it). */
export interface LlmCacheStatus {
  readonly mode: CacheMode;
  /** Answers held, and the bound. */
  readonly entries: number;
  readonly maxEntries: number;
  /** Requests answered from the cache, and those it could have answered that went to the model, since the server started. */
  readonly hits: number;
  readonly misses: number;
  /** hits / (hits + misses); null before the first such request. */
  readonly hitRate: number | null;
  /** Lines of the cache's file that could not be read at start (set aside in <file>.damaged). */
  readonly damagedLines?: number;
  /** Why the server keeps no answers although LLM_CACHE asks it to (its file cannot be read). */
  readonly problem?: string;
}

/** The decision cache in one line, for the study's progress page. */
export function cacheLine(status: LlmStatus): string {
  const cache = status.cache;
  if (!status.configured) return 'Decision cache: no language model is configured.';
  if (!cache) return 'Decision cache: this server keeps none.';
  if (cache.problem) return `Decision cache: none, ${cache.problem}.`;
  if (cache.mode === 'off') return 'Decision cache: off (LLM_CACHE=off).';
  const asked = cache.hits + cache.misses;
  const rate = cache.hitRate === null ? 'no decision it could answer asked yet' : `${pct(cache.hitRate)} of ${countOf(asked, 'decision')} it could answer answered from it`;
  const damaged = cache.damagedLines ? ` · ${countOf(cache.damagedLines, 'unreadable line')} set aside at start` : '';
  return `Decision cache (${cache.mode}): ${rate} since the server started · ${cache.entries} of ${cache.maxEntries} answers kept${damaged}.`;
}

type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface ProxyClientOptions {
  /** Default '/api/llm' on the page's origin. */
  readonly endpoint?: string;
  /** The model's name as the status reported it (the proxy chooses the model). */
  readonly model?: string;
  readonly fetch?: FetchLike;
}

function kindOf(status: number, bodyKind: unknown): CallFailureKind {
  if (typeof bodyKind === 'string' && (CALL_FAILURE_KINDS as readonly string[]).includes(bodyKind)) return bodyKind as CallFailureKind;
  if (status === 429) return 'rate-limit';
  if (status === 504 || status === 408) return 'timeout';
  if (status >= 500) return 'server';
  return 'http';
}

export class ProxyChatClient implements ChatClient {
  readonly model: string;
  private readonly endpoint: string;
  private readonly fetchImpl: FetchLike;

  constructor(options: ProxyClientOptions = {}) {
    this.endpoint = options.endpoint ?? LLM_PROXY_PATH;
    this.model = options.model ?? 'proxy';
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  }

  async complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    let response: Response;
    try {
      response = await this.fetchImpl(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
        signal,
      });
    } catch (err) {
      if (signal.aborted) throw new ChatError('aborted', 'the call was aborted');
      throw new ChatError('network', `cannot reach ${this.endpoint}: ${(err as Error).message}`);
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      if (signal.aborted) throw new ChatError('aborted', 'the call was aborted');
      throw new ChatError(response.ok ? 'server' : kindOf(response.status, null), `${this.endpoint} answered HTTP ${response.status} without JSON`, response.status);
    }
    if (!response.ok) {
      const error = (body as { error?: { kind?: unknown; message?: unknown } } | null)?.error;
      const message = typeof error?.message === 'string' ? error.message : `HTTP ${response.status}`;
      throw new ChatError(kindOf(response.status, error?.kind), message, response.status, parseRetryAfter(response.headers));
    }
    const parsed = chatResponseSchema.safeParse(body);
    if (!parsed.success) throw new ChatError('server', `${this.endpoint} sent an answer of the wrong shape`);
    return parsed.data;
  }
}

/** Ask the server whether a model is configured (and how to configure one if not). */
export async function fetchLlmStatus(endpoint: string = LLM_STATUS_PATH, fetchImpl: FetchLike = (i, init) => fetch(i, init)): Promise<LlmStatus> {
  try {
    const response = await fetchImpl(endpoint, { headers: { accept: 'application/json' } });
    if (!response.ok) return { configured: false, error: `${endpoint} answered HTTP ${response.status}: the server has no language-model proxy` };
    return (await response.json()) as LlmStatus;
  } catch (err) {
    return { configured: false, error: `cannot reach ${endpoint}: ${(err as Error).message}` };
  }
}

export interface ProxyLlmOptions {
  /** Default '/api/llm' and '/api/llm/status' on the page's origin. */
  readonly endpoint?: string;
  readonly statusEndpoint?: string;
  /** Default live (the page's frame loop); headless users of the proxy pick another. */
  readonly timing?: TimingMode;
  readonly fetch?: FetchLike;
}

/**
 * The strategist settings a page plays with, from the server's status: what the status
 * leaves out is at its default, as it would be on the server. `npm run llm:warm` builds its
 * requests from the same, so they have the addresses a page's requests have.
 */
export function pageStrategistSettings(s: LlmStatus, timing: TimingMode): StrategistSettings {
  return strategistSettingsOf({
    format: s.format,
    temperature: s.temperature,
    timeoutMs: s.timeoutMs,
    rateHz: s.rateHz,
    events: s.events?.filter((e): e is EventTrigger => (EVENT_TRIGGERS as readonly string[]).includes(e)),
    timing,
    skills: s.skills === 'scripted' ? 'scripted' : 'rl',
  });
}

/**
 * The page's way to a model: the server's proxy. Its status says whether the server has
 * a model and with which settings (the server's LLM_SKILLS decides the skills, as in Node);
 * asked once, when first needed.
 */
export function proxyLlmAccess(options: ProxyLlmOptions = {}): LlmAccess {
  const fetchImpl = options.fetch ?? ((input: string, init?: RequestInit) => fetch(input, init));
  let status: Promise<LlmStatus> | null = null;
  const readStatus = () => (status ??= fetchLlmStatus(options.statusEndpoint, fetchImpl));
  const provider = (s: LlmStatus) => `server proxy${s.provider ? ` to ${s.provider}` : s.baseUrl ? ` to ${s.baseUrl}` : ''}`;
  const settingsOf = (s: LlmStatus) => pageStrategistSettings(s, options.timing ?? { kind: 'live' });
  const unavailable = (s: LlmStatus) => new LlmUnavailable(s.error ?? 'the server has no language model configured', s.help);
  return lazyLlmAccess(
    async () => {
      const s = await readStatus();
      if (s.configured && s.model) return { ok: true, model: s.model, provider: provider(s), settings: settingsOf(s) };
      const why = unavailable(s);
      return { ok: false, reason: why.reason, ...(why.help ? { help: why.help } : {}) };
    },
    async () => {
      const s = await readStatus();
      if (!s.configured || !s.model) throw unavailable(s);
      return {
        client: new ProxyChatClient({ model: s.model, fetch: fetchImpl, ...(options.endpoint ? { endpoint: options.endpoint } : {}) }),
        provider: provider(s),
        settings: settingsOf(s),
        cache: null,
      };
    },
  );
}
