/**
 * The chat client over the openai SDK: any OpenAI-compatible server (OpenAI, Ollama, vLLM,
 * llama.cpp, LM Studio). The only module that imports `openai`; used in Node (the CLI, the
 * proxy), never in the page. The SDK's own retries are off: the strategist decides what a
 * failure means (keep the skills, back off), and a late answer is worth nothing in a game.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { type ChatClient, ChatError, type ChatRequest, type ChatResponse, parseRetryAfter } from '../chat';

export interface OpenAiClientSettings {
  readonly baseUrl: string;
  /** '' for servers that need none (a placeholder is sent; local servers ignore it). */
  readonly apiKey: string;
  readonly model: string;
  /** An upper bound for the SDK (sdkTimeoutMs of the strategist's timeout); the caller's signal normally ends a call sooner. */
  readonly timeoutMs: number;
}

type Completion = OpenAI.Chat.Completions.ChatCompletion;
type CreateBody = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;

/** Classify whatever the SDK threw. */
export function toChatError(err: unknown, signal?: AbortSignal): ChatError {
  if (err instanceof ChatError) return err;
  if (signal?.aborted || err instanceof APIUserAbortError) return new ChatError('aborted', 'the call was aborted');
  if (err instanceof APIConnectionTimeoutError) return new ChatError('timeout', 'the server did not answer in time');
  if (err instanceof APIConnectionError) return new ChatError('network', `cannot reach the server: ${err.cause instanceof Error ? err.cause.message : err.message}`);
  if (err instanceof APIError) {
    const status = err.status ?? 0;
    const message = `the server answered HTTP ${status}${err.message ? `: ${err.message.slice(0, 200)}` : ''}`;
    if (status === 429) return new ChatError('rate-limit', message, status, parseRetryAfter(err.headers));
    if (status === 408 || status === 504) return new ChatError('timeout', message, status);
    if (status >= 500) return new ChatError('server', message, status);
    return new ChatError('http', message, status);
  }
  return new ChatError('server', `unexpected reply: ${err instanceof Error ? err.message : String(err)}`);
}

export class OpenAiChatClient implements ChatClient {
  readonly model: string;
  private readonly openai: OpenAI;
  private readonly apiKey: string;
  /** False once the server refused a json_schema response_format; later calls omit it. */
  private jsonSchema = true;

  constructor(settings: OpenAiClientSettings) {
    this.model = settings.model;
    this.apiKey = settings.apiKey;
    this.openai = new OpenAI({
      baseURL: settings.baseUrl,
      apiKey: settings.apiKey || 'none',
      maxRetries: 0,
      timeout: settings.timeoutMs,
    });
  }

  async complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    try {
      return await this.call(request, signal);
    } catch (err) {
      throw this.scrub(err as ChatError);
    }
  }

  /** The error without the key, whatever the server echoed. */
  private scrub(error: ChatError): ChatError {
    if (!this.apiKey || !error.message.includes(this.apiKey)) return error;
    return new ChatError(error.kind, error.message.split(this.apiKey).join('[key]'), error.status, error.retryAfterMs);
  }

  private async call(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    const structured = Boolean(request.responseFormat) && this.jsonSchema;
    try {
      return await this.send(request, structured, signal);
    } catch (err) {
      const error = toChatError(err, signal);
      // Servers without structured output answer 400 (or 422): ask again without it, once.
      if (structured && error.kind === 'http' && (error.status === 400 || error.status === 422)) {
        this.jsonSchema = false;
        try {
          return { ...(await this.send(request, false, signal)), formatFallback: true };
        } catch (again) {
          throw toChatError(again, signal);
        }
      }
      throw error;
    }
  }

  private async send(request: ChatRequest, structured: boolean, signal: AbortSignal): Promise<ChatResponse> {
    const body: CreateBody = {
      model: this.model,
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
      temperature: request.temperature,
      ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
      ...(structured && request.responseFormat ? { response_format: request.responseFormat as CreateBody['response_format'] } : {}),
    };
    const completion: Completion | string = await this.openai.chat.completions.create(body, { signal });
    if (typeof completion !== 'object' || completion === null || !Array.isArray(completion.choices)) {
      throw new ChatError('server', 'the server sent no chat completion');
    }
    const content = completion.choices[0]?.message?.content;
    return {
      text: typeof content === 'string' ? content : '',
      ...(completion.usage ? { promptTokens: completion.usage.prompt_tokens, completionTokens: completion.usage.completion_tokens } : {}),
      ...(typeof completion.model === 'string' ? { model: completion.model } : {}),
    };
  }
}
