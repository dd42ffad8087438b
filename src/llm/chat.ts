/**
 * The chat-completions contract the strategist speaks, whatever carries it: the OpenAI SDK
 * on the server (client.ts), the embedded local engine (llamaClient.ts), the page's proxy
 * client (proxyClient.ts), a test double.
 * Browser-safe: no SDK, no Node modules.
 */
import { z } from 'zod';

export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
}

/** An OpenAI `response_format` of type json_schema (structured output). */
export interface JsonSchemaFormat {
  readonly type: 'json_schema';
  readonly json_schema: {
    readonly name: string;
    readonly strict?: boolean;
    readonly schema: Readonly<Record<string, unknown>>;
  };
}

export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  readonly temperature: number;
  /** Upper bound on the answer's tokens; omitted when 0 or absent. */
  readonly maxTokens?: number;
  /** Ask for structured JSON output; clients fall back to plain text where the server refuses it. */
  readonly responseFormat?: JsonSchemaFormat;
  /**
   * The answer is `count` numbers from 1 to `max`, comma-separated ("1,3"): engines that
   * constrain decoding (the local one) hold the model to it; servers get the prompt alone.
   */
  readonly numberList?: { readonly count: number; readonly max: number };
}

export interface ChatResponse {
  /** The assistant message's text ('' when the server sent none). */
  readonly text: string;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  /** The model that answered, as the server names it. */
  readonly model?: string;
  /** True when the server refused response_format and the request went again without it. */
  readonly formatFallback?: boolean;
}

/** Anything that answers chat requests. `signal` aborts the call (the strategist's timeout). */
export interface ChatClient {
  /** The model name, part of the decision cache's address. */
  readonly model: string;
  complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse>;
  /** Tokens a call's prompt and answer share, where the client knows it (the local engine's sequence). */
  readonly contextTokens?: number;
  /** The request's prompt in the model's own tokens, where the client can count them (the local engine). */
  promptTokens?(request: ChatRequest): number;
  /** Free what the client holds (the local engine's model and context, a channel); absent where it holds nothing. */
  close?(): Promise<void>;
  /**
   * Everything beyond the request that decides this client's answers (the model's and the
   * adapter's digests, the decoding), for the server's decision cache; absent: the model's
   * name and who serves it.
   */
  readonly answerIdentity?: string;
  /** Whether this request always gets the same answer, to the bit; absent: at temperature 0 only. */
  answersAlike?(request: ChatRequest): boolean;
}

/** Whether `client` answers `request` the same every time (what the server's decision cache may keep). */
export function answersAlike(client: ChatClient, request: ChatRequest): boolean {
  return client.answersAlike ? client.answersAlike(request) : request.temperature === 0;
}

/** Why a call brought no answer. */
export const CALL_FAILURE_KINDS = ['timeout', 'rate-limit', 'server', 'network', 'http', 'aborted'] as const;
export type CallFailureKind = (typeof CALL_FAILURE_KINDS)[number];

/** A failed call, classified; `retryAfterMs` comes from a 429's Retry-After. */
export class ChatError extends Error {
  constructor(
    readonly kind: CallFailureKind,
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ChatError';
  }
}

interface HeaderReader {
  get(name: string): string | null;
}

/** Milliseconds to wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date). */
export function parseRetryAfter(headers: HeaderReader | null | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Bounds a proxied request must keep (the proxy validates, the page's client respects them). */
export const CHAT_LIMITS = {
  maxMessages: 8,
  maxContentChars: 12_000,
  maxTokens: 1024,
} as const;

const jsonSchemaFormat = z.object({
  type: z.literal('json_schema'),
  json_schema: z.object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
    strict: z.boolean().optional(),
    schema: z.record(z.string(), z.unknown()),
  }),
});

/** What the proxy accepts: a chat request, without a model (the server chooses it). */
export const chatRequestSchema = z
  .object({
    messages: z
      .array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string().max(CHAT_LIMITS.maxContentChars) }).strict())
      .min(1)
      .max(CHAT_LIMITS.maxMessages),
    temperature: z.number().min(0).max(2),
    maxTokens: z.number().int().min(0).max(CHAT_LIMITS.maxTokens).optional(),
    responseFormat: jsonSchemaFormat.optional(),
    numberList: z.object({ count: z.number().int().min(1).max(16), max: z.number().int().min(1).max(9) }).strict().optional(),
  })
  .strict();

/** The proxy's answer body. */
export const chatResponseSchema = z.object({
  text: z.string(),
  promptTokens: z.number().optional(),
  completionTokens: z.number().optional(),
  model: z.string().optional(),
  formatFallback: z.boolean().optional(),
});
