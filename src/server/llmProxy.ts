/**
 * The language-model proxy: the page's strategist asks POST /api/llm, and this server,
 * which alone holds the key, forwards the request to its model (its LlmAccess: a server
 * through the openai SDK, or the embedded local engine). Requests must come from the
 * server's own pages as JSON (403 for another origin, 415 for another content type), are
 * validated (shape, 32 KiB, a prompt of at most so many tokens), rate-limited per client,
 * admitted to the model a few at a time with a bounded queue, and only where it would be
 * answered within its timeout (llmProxyGate.ts), given a token bound where they set none,
 * answered from the decision cache where the model has answered the same request before and
 * answers it the same every time (llmProxyCache.ts), and otherwise sent with the server's
 * model (a json request to the model that answers json: a local model alone where its
 * adapter was taught compact); a request whose caller gives up (or times out) stops the
 * model's work on it. Answers and errors never carry the key.
 *
 *   POST /api/llm         {messages, temperature, maxTokens?, responseFormat?}
 *                         -> 200 {text, promptTokens?, completionTokens?, model?, latencyMs, cached?}
 *                         -> 400 invalid, 403 another origin, 413 too large (bytes, or
 *                            prompt tokens: the message names the bound), 415 not JSON,
 *                            429 rate-limited or this client's share in use (Retry-After),
 *                            502 model server error, 503 no model configured, the
 *                            model's queue full, or an answer that would come only past
 *                            the timeout (Retry-After), 504 timeout;
 *                            errors in the API's one shape, {error: {kind, message, help?}}
 *                            (apiError.ts), whose kind the page's client reads
 *   GET  /api/llm/status  {configured, model, baseUrl, keySet, format, ..., cache?} or
 *                         {configured: false, error, help}
 *
 * Mounted by the product's server (src/cli/serve.ts) and by Vite's dev server (vite.config.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { type ChatClient, ChatError, type ChatRequest, type LlmAccess, type LlmAvailability, type LlmConnection, type LlmStatus, chatRequestSchema } from '../llm';
import { estimateTokens } from '../llm/tokens';
import { proxyTimeoutMs } from '../llm/timing';
import { LLM_PROXY_PATH, LLM_STATUS_PATH } from '../llm/proxyClient';
import { LLM_FILES_PATH } from '../llm/servedFiles';
import { type LlmFilesOptions, llmFilesRoutes } from './llmFiles';
import { ApiError, validBody } from './apiError';
import { jsonApi } from './jsonApi';
import type { ProxyDecisionCache } from './llmProxyCache';
import { AdmissionGate, DEFAULT_GATE_LIMITS, type GateLimits } from './llmProxyGate';
import { useRateLimits } from './rateLimit';
import { type ApiRoutes, createAppServer } from './server';

export interface LlmProxyOptions {
  /** How this server reaches its model: nodeLlmAccess in the product (a server or the local engine). */
  readonly access: LlmAccess;
  /** Largest request body; default 32 KiB. */
  readonly maxBodyBytes?: number;
  /** Per client (remote address): sustained requests per second and burst; default 8/s, 16. */
  readonly rate?: { readonly perSecond: number; readonly burst: number };
  /** Largest prompt in tokens (the model's own where its client counts them, else estimated); default 2048, and never past the model's context less the answer. */
  readonly maxPromptTokens?: number;
  /** The answer's token bound where a request sets none; default 64. */
  readonly defaultMaxTokens?: number;
  /** Requests at the model at once, waiting, per client, and the lightest answers' bound (llmProxyGate.ts); default 4, 8, 2 and 16. */
  readonly limits?: Partial<GateLimits>;
  /** The gate itself, made by the caller (tests watch its load); default one with `limits`. */
  readonly gate?: AdmissionGate;
  /** Clock in ms (tests); default Date.now. */
  readonly now?: () => number;
  /** The decision cache (the product's server opens one as LLM_CACHE says); default none. */
  readonly cache?: ProxyDecisionCache;
}

export const LLM_PROXY_MAX_BODY = 32 * 1024;

/**
 * The page's prompts are about 700 tokens (the system prompt and a situation); 2048 leaves
 * room for longer custom ones. A 24 KB prompt (about 6,000 tokens) held the local model 93 s.
 */
export const LLM_PROXY_MAX_PROMPT_TOKENS = 2048;
/**
 * The page bounds every answer itself (16 tokens compact, 120 json: DEFAULT_MAX_TOKENS); a
 * request without a bound held the model until the timeout. 64 tokens is a paragraph.
 */
export const LLM_PROXY_DEFAULT_MAX_TOKENS = 64;

/** Tokens the answer may take: a compact answer's numbers and commas, else its bound. */
function answerTokens(request: ChatRequest): number {
  return request.numberList && !request.responseFormat ? 2 * request.numberList.count : (request.maxTokens ?? 0);
}

/** The prompt's size in the model's tokens where the client counts them, else estimated (4 a message for the template). */
function promptSize(client: ChatClient, request: ChatRequest): { readonly tokens: number; readonly estimated: boolean } {
  if (client.promptTokens) return { tokens: client.promptTokens(request), estimated: false };
  return { tokens: request.messages.reduce((n, m) => n + estimateTokens(m.content) + 4, 0), estimated: true };
}

/** Why a prompt is too long for this proxy and its model, or null. */
export function promptRefusal(client: ChatClient, request: ChatRequest, maxPromptTokens: number): string | null {
  const answer = answerTokens(request);
  const context = client.contextTokens;
  const bound = context !== undefined ? Math.min(maxPromptTokens, context - answer) : maxPromptTokens;
  const size = promptSize(client, request);
  if (size.tokens <= bound) return null;
  const compact = request.numberList && !request.responseFormat ? `: ${['one', 'two', 'three', 'four'][request.numberList.count - 1] ?? request.numberList.count} number${request.numberList.count === 1 ? '' : 's'} and ${request.numberList.count === 1 ? 'its comma' : 'their commas'}` : '';
  const why = context !== undefined && bound < maxPromptTokens ? `the model's context of ${context} tokens less ${answer} for the answer${compact}` : 'this server\'s bound';
  return `the prompt is ${size.tokens} tokens${size.estimated ? ' (estimated)' : ''}; at most ${Math.max(0, bound)} are taken (${why})`;
}

/** The status a page may see: never the key. */
export function llmStatus(availability: LlmAvailability): LlmStatus {
  if (!availability.ok) return { configured: false, error: availability.reason, ...(availability.help ? { help: availability.help } : {}) };
  const s = availability.settings;
  return {
    configured: true,
    model: availability.model,
    provider: availability.provider,
    ...(availability.baseUrl !== undefined ? { baseUrl: availability.baseUrl } : {}),
    ...(availability.keySet !== undefined ? { keySet: availability.keySet } : {}),
    format: s.format,
    temperature: s.temperature,
    timeoutMs: s.timeoutMs,
    rateHz: s.rateHz,
    events: [...s.events],
    skills: s.skills,
  };
}


/** The proxy's routes: POST /api/llm and GET /api/llm/status. */
export function llmProxyRoutes(options: LlmProxyOptions): ApiRoutes {
  const { access } = options;
  const maxBody = options.maxBodyBytes ?? LLM_PROXY_MAX_BODY;
  const now = options.now ?? Date.now;
  const rate = options.rate ?? { perSecond: 8, burst: 16 };
  const gate = options.gate ?? new AdmissionGate({ ...DEFAULT_GATE_LIMITS, ...options.limits }, now);
  const maxPromptTokens = options.maxPromptTokens ?? LLM_PROXY_MAX_PROMPT_TOKENS;
  const defaultMaxTokens = options.defaultMaxTokens ?? LLM_PROXY_DEFAULT_MAX_TOKENS;
  const cache = options.cache ?? null;

  return async (app) => {
    jsonApi(app);
    await useRateLimits(app, now);

    app.post(
      LLM_PROXY_PATH,
      {
        bodyLimit: maxBody,
        config: {
          rateLimit: {
            max: rate.burst,
            timeWindow: (rate.burst / rate.perSecond) * 1000,
            errorResponseBuilder: () => new ApiError(429, 'too many requests from this client'),
          },
        },
      },
      async (request, reply) => {
        const parsed = validBody(chatRequestSchema, request.body);
        const model = modelFor(parsed);
        const availability = await model.availability();
        if (!availability.ok) throw new ApiError(503, availability.reason, availability.help ? { help: availability.help } : {});
        let connection: LlmConnection;
        try {
          connection = await model.connect();
        } catch (err) {
          throw new ApiError(503, (err as Error).message);
        }
        const { client } = connection;
        // No request holds the model without a bound on its answer.
        const chat: ChatRequest = parsed.maxTokens ? parsed : { ...parsed, maxTokens: defaultMaxTokens };
        const tooLong = promptRefusal(client, chat, maxPromptTokens);
        if (tooLong) throw new ApiError(413, tooLong);
        const started = now();
        // An answer the model gives the same every time, given before: no place at the model needed.
        const cached = cache?.answer(connection, chat);
        if (cached) return { ...cached, latencyMs: now() - started, cached: true };
        return ask(client, connection, chat, request.ip, reply);
      },
    );

    app.get(LLM_STATUS_PATH, async () => {
      const status = llmStatus(await access.availability());
      return cache ? { ...status, cache: cache.status() } : status;
    });
  };

  /**
   * The model that answers this request's format: a json request (the page's json format)
   * goes where llm:format=json would, so a local model whose adapter was taught the compact
   * format answers it alone rather than through the adapter (which answers no json).
   */
  function modelFor(request: ChatRequest): LlmAccess {
    return request.responseFormat && access.withModel ? access.withModel({ format: 'json' }) : access;
  }

  /** Wait for a place at the model, ask it, and answer; the answer and errors without the key. */
  async function ask(client: ChatClient, connection: LlmConnection, request: ChatRequest, clientKey: string, reply: FastifyReply): Promise<unknown> {
    /** Whatever the model or its server said, without the key. */
    const scrub = (text: string) => (connection.secrets ?? []).reduce((t, secret) => t.split(secret).join('[key]'), text);
    const abort = new AbortController();
    let timedOut = false;
    const limitMs = proxyTimeoutMs(connection.settings.timeoutMs);
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, limitMs);
    // The page gave up (its own timeout): stop waiting for the model too.
    reply.raw.on('close', () => {
      if (!reply.raw.writableEnded) abort.abort();
    });
    const started = now();
    // Waiting for a place counts against the timeout, and ends when the page leaves; a request
    // the model would answer only past the timeout is refused at once rather than timed out.
    const admission = await gate.enter(clientKey, answerTokens(request), abort.signal, limitMs);
    if (!admission.ok) {
      clearTimeout(timer);
      if (admission.status !== 499) throw new ApiError(admission.status, admission.message, { headers: { 'retry-after': String(admission.retryAfterSeconds) } });
      if (timedOut) throw new ApiError(504, 'the model did not answer in time (its queue was long)');
      throw new ApiError(499, admission.message);
    }
    let answered = false;
    try {
      const answer = await client.complete(request, abort.signal);
      answered = true;
      // A model may repeat whatever reached it (a prompt asking for the key): answers are scrubbed too.
      const scrubbed = { ...answer, text: scrub(answer.text), ...(answer.model ? { model: scrub(answer.model) } : {}) };
      const latencyMs = now() - started;
      cache?.keep(connection, request, scrubbed, latencyMs);
      return { ...scrubbed, latencyMs };
    } catch (err) {
      const error = err instanceof ChatError ? err : new ChatError('server', err instanceof Error ? err.message : String(err));
      if (timedOut || error.kind === 'timeout') throw new ApiError(504, 'the model did not answer in time');
      if (error.kind === 'aborted') throw new ApiError(499, 'the request was abandoned');
      if (error.kind === 'rate-limit') {
        const seconds = error.retryAfterMs !== undefined ? Math.ceil(error.retryAfterMs / 1000) : 1;
        throw new ApiError(429, 'the model server is rate-limiting', { headers: { 'retry-after': String(seconds) } });
      }
      if (error.kind === 'http' && (error.status === 401 || error.status === 403)) {
        throw new ApiError(502, `the model server refused the server's credentials (HTTP ${error.status}): check OPENAI_API_KEY`, { kind: 'http' });
      }
      throw new ApiError(502, scrub(error.message), { kind: error.kind });
    } finally {
      clearTimeout(timer);
      // Only an answer, or a call cut off at its timeout, says how long the model takes.
      admission.release(answered || timedOut);
    }
  }
}

type Next = (err?: unknown) => void;

/**
 * The proxy as a connect middleware, for Vite's dev server (vite.config.ts): its own
 * fastify instance answers the proxy's two paths and the lent model files (llmFiles.ts),
 * with the same rules as `npm start`.
 */
export async function llmProxyMiddleware(options: LlmProxyOptions & LlmFilesOptions): Promise<(req: IncomingMessage, res: ServerResponse, next: Next) => void> {
  const app = createAppServer({ routes: [llmProxyRoutes(options), llmFilesRoutes(options)] });
  await app.ready();
  return (req, res, next) => {
    const path = (req.url ?? '').split('?')[0]!;
    if (path === LLM_PROXY_PATH || path === LLM_STATUS_PATH || path === LLM_FILES_PATH || path.startsWith(`${LLM_FILES_PATH}/`)) app.routing(req, res);
    else next();
  };
}
