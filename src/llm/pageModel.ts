/**
 * The strategist's model run by the page itself: llama.cpp in WebAssembly (@wllama/wllama,
 * in its own worker) on the files the server lends (servedFiles.ts), so the server does not
 * run a decision for this page. Each file is fetched whole and its sha256 checked in the page
 * against the server's listing before it loads; a file that differs is refused, named.
 *
 * A compact answer is read as the embedded engine reads it (node/llamaClient.ts, the logic
 * shared in numberScores.ts): the prompt through Gemma's chat template (gemmaPrompt.ts), then
 * for each agent the probabilities of the number tokens after the prompt and the numbers
 * chosen so far, each with its comma; no sampling; calibrated against the content-free
 * state only where no adapter runs. The probabilities are llama.cpp's own after the same
 * sampler chain as the embedded engine's (a bias lifting the numbers, top-k of them,
 * temperature 1), read with its server's `post_sampling_probs`. Other answers (the json
 * format) are generated under the request's JSON schema. One request at a time: the engine
 * keeps what it last evaluated, so the next prompt's system part is not evaluated again.
 * Browser-safe; wllama is imported only when a model opens.
 */
import { z } from 'zod';
import { type ChatClient, ChatError, type ChatMessage, type ChatRequest, type ChatResponse } from './chat';
import { gemmaChatText } from './gemmaPrompt';
import { NUMBER_LOGIT_BIAS, chosenPrefix, compactAnswer, contentFreeState, scoreNumberList } from './numberScores';
import { LLM_FILES_PATH, type LlmFiles, type ServedFile, llmFilesSchema, servedFileUrl } from './servedFiles';

type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** What the client asks of the engine: one completion of llama.cpp's server API, its answer as sent. */
export interface PageEngine {
  complete(body: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<unknown>;
  close(): Promise<void>;
}

/** The page will not run the model: why, for the page and its tests. */
export class PageModelRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PageModelRefused';
  }
}

/** The server's listing of the files it lends, or why there is none (it runs no pulled model). */
export async function fetchServedFiles(fetchImpl: FetchLike, endpoint: string = LLM_FILES_PATH): Promise<{ readonly ok: true; readonly files: LlmFiles } | { readonly ok: false; readonly reason: string }> {
  let response: Response;
  try {
    response = await fetchImpl(endpoint, { headers: { accept: 'application/json' } });
  } catch (err) {
    return { ok: false, reason: `cannot reach ${endpoint}: ${(err as Error).message}` };
  }
  const body = (await response.json().catch(() => null)) as unknown;
  if (!response.ok) {
    const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
    return { ok: false, reason: typeof message === 'string' ? message : `${endpoint} answered HTTP ${response.status}` };
  }
  const parsed = llmFilesSchema.safeParse(body);
  if (!parsed.success) return { ok: false, reason: `${endpoint} sent a listing of the wrong shape: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
  return { ok: true, files: parsed.data };
}

/** The sha256 of `bytes` in lower-case hex, by the page's own crypto. */
export async function sha256Hex(bytes: ArrayBuffer): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** A listed file, fetched whole and checked against the listing: its bytes, or a refusal naming the file. */
export async function fetchCheckedFile(file: ServedFile, fetchImpl: FetchLike, base: string = LLM_FILES_PATH): Promise<Blob> {
  const url = servedFileUrl(file, base);
  const response = await fetchImpl(url);
  if (!response.ok) throw new PageModelRefused(`the ${file.role} file ${file.file} could not be fetched from ${url}: HTTP ${response.status}`);
  const bytes = await response.arrayBuffer();
  if (bytes.byteLength !== file.bytes) throw new PageModelRefused(`the ${file.role} file ${file.file} is ${bytes.byteLength} bytes, the server's listing says ${file.bytes}: it was not loaded`);
  const sha256 = await sha256Hex(bytes);
  if (sha256 !== file.sha256) throw new PageModelRefused(`the ${file.role} file ${file.file} is not the one the server lists: its SHA-256 is ${sha256}, the listing says ${file.sha256}; it was not loaded`);
  return new Blob([bytes]);
}

/** One decoded token's probabilities, as llama.cpp's server gives them with post_sampling_probs. */
const probabilitiesSchema = z.object({
  choices: z
    .array(
      z.object({
        text: z.string(),
        logprobs: z.object({ content: z.array(z.object({ top_probs: z.array(z.object({ token: z.string(), prob: z.number() })) })).min(1) }).nullish(),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number() }).partial().optional(),
});

export interface PageChatClientOptions {
  /** The model's name (the server's status gives it: the same files, the same name). */
  readonly model: string;
  /** Divide scored numbers by the model's prior on a content-free state: true where no adapter runs, as in Node. */
  readonly calibrate: boolean;
}

const aborted = () => new ChatError('aborted', 'the call was aborted');

/** The chat client over the page's engine. */
export class PageChatClient implements ChatClient {
  readonly model: string;
  private readonly calibrate: boolean;
  /** The request in progress: one at a time. */
  private turn: Promise<unknown> = Promise.resolve();
  /** Priors under a system prompt, by agent count and the numbers chosen before. */
  private readonly priors = new Map<string, Promise<readonly number[]>>();

  constructor(
    private readonly engine: PageEngine,
    options: PageChatClientOptions,
  ) {
    this.model = options.model;
    this.calibrate = options.calibrate;
  }

  /** A scored compact answer reads probabilities, no sampling: the same prompt, the same answer. */
  answersAlike(request: ChatRequest): boolean {
    return request.temperature === 0 || Boolean(request.numberList && !request.responseFormat);
  }

  complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    if (signal.aborted) return Promise.reject(aborted());
    const run = this.turn.then(() => this.answer(request, signal));
    this.turn = run.catch(() => undefined);
    return run;
  }

  close(): Promise<void> {
    return this.engine.close();
  }

  /** Evaluate `messages` once, so the first decision finds its system prompt evaluated (as the Node engine warms). */
  async warm(messages: readonly ChatMessage[]): Promise<void> {
    await this.complete({ messages, temperature: 0, maxTokens: 1 }, new AbortController().signal);
  }

  private async answer(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    if (signal.aborted) throw aborted();
    const prompt = gemmaChatText(request.messages);
    try {
      if (request.numberList && !request.responseFormat) {
        const list = request.numberList;
        let promptTokens: number | undefined;
        const numbers = await scoreNumberList(
          list.count,
          async (chosen) => {
            const read = await this.numberProbabilities(prompt + chosenPrefix(chosen), list.max, signal);
            promptTokens ??= read.promptTokens;
            return read.probabilities;
          },
          this.calibrate ? (chosen) => this.prior(request.messages, list, chosen, signal) : undefined,
        );
        const answer = compactAnswer(numbers);
        return { text: answer.text, completionTokens: answer.completionTokens, model: this.model, ...(promptTokens !== undefined ? { promptTokens } : {}) };
      }
      return await this.freeAnswer(prompt, request, signal);
    } catch (err) {
      if (signal.aborted) throw aborted();
      if (err instanceof ChatError) throw err;
      throw new ChatError('server', `the page's model failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** The probabilities of the numbers 1 to `max` as the next token after `text`. */
  private async numberProbabilities(text: string, max: number, signal: AbortSignal): Promise<{ probabilities: number[]; promptTokens?: number }> {
    const numbers = Array.from({ length: max }, (_, i) => String(i + 1));
    const body = {
      prompt: text,
      max_tokens: 1,
      n_probs: max,
      post_sampling_probs: true,
      // The embedded engine's chain: the numbers lifted above every other token, the top `max` kept, temperature 1.
      logit_bias: numbers.map((n) => [n, NUMBER_LOGIT_BIAS]),
      samplers: ['top_k', 'temperature'],
      top_k: max,
      temperature: 1,
      cache_prompt: true,
    };
    const parsed = probabilitiesSchema.safeParse(await this.engine.complete(body, signal));
    const top = parsed.success ? parsed.data.choices[0]!.logprobs?.content[0]?.top_probs : undefined;
    if (!top) throw new ChatError('server', "the page's model gave no probabilities for the answer");
    const probabilities = numbers.map((n) => top.find((t) => t.token === n)?.prob ?? 0);
    if (probabilities.every((p) => p === 0)) throw new ChatError('server', `the page's model gave no probability to any number 1-${max} (it gave ${top.map((t) => JSON.stringify(t.token)).join(', ')})`);
    const promptTokens = parsed.success ? parsed.data.usage?.prompt_tokens : undefined;
    return { probabilities, ...(promptTokens !== undefined ? { promptTokens } : {}) };
  }

  /** The numbers' prior after `chosen` under the request's system prompt: read once on the content-free state. */
  private prior(messages: readonly ChatMessage[], list: { readonly count: number; readonly max: number }, chosen: readonly number[], signal: AbortSignal): Promise<readonly number[]> {
    const system = messages[0]?.role === 'system' ? messages[0] : null;
    const key = `${list.count}:${list.max}:${chosen.join(',')}\u0000${system?.content ?? ''}`;
    let prior = this.priors.get(key);
    if (!prior) {
      const free = gemmaChatText([...(system ? [system] : []), { role: 'user', content: contentFreeState(list.count) }]);
      prior = this.numberProbabilities(free + chosenPrefix(chosen), list.max, signal).then((read) => read.probabilities);
      // A failed read (an abort) is read again next time.
      prior.catch(() => this.priors.delete(key));
      this.priors.set(key, prior);
    }
    return prior;
  }

  /** An answer generated under the request's JSON schema where it gives one, within its token bound. */
  private async freeAnswer(prompt: string, request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    const body = {
      prompt,
      max_tokens: request.maxTokens ?? 64,
      temperature: request.temperature,
      cache_prompt: true,
      ...(request.responseFormat ? { json_schema: request.responseFormat.json_schema.schema } : {}),
    };
    const parsed = probabilitiesSchema.safeParse(await this.engine.complete(body, signal));
    if (!parsed.success) throw new ChatError('server', "the page's model sent an answer of the wrong shape");
    return { text: parsed.data.choices[0]!.text, model: this.model };
  }
}

export interface PageModelOptions {
  /** The model's name, as the server's status gives it. */
  readonly model: string;
  /** The URL of wllama's wasm, as the page's bundler placed it. */
  readonly wasmUrl: string;
  /** llama.cpp threads in the page (more than one needs cross-origin isolation); default 1. */
  readonly threads?: number;
  /** Tokens of context; default 2048 (a decision's prompt is about 700). */
  readonly contextSize?: number;
  readonly fetch?: FetchLike;
  /** Default /api/llm/files. */
  readonly filesEndpoint?: string;
  /** The listing, where the caller has it already. */
  readonly files?: LlmFiles;
}

/**
 * Where wllama puts the second file it is given in its worker's file system (it names every
 * file it is given as a shard of the model, and loads the model from the first): the adapter.
 */
const ADAPTER_PATH_IN_WORKER = 'models/model-00002-of-00002.gguf';

/** Fetch the lent files, check them, and start the engine on them: the page's chat client. */
export async function openPageModel(options: PageModelOptions): Promise<PageChatClient> {
  const fetchImpl = options.fetch ?? ((input: string, init?: RequestInit) => fetch(input, init));
  const base = options.filesEndpoint ?? LLM_FILES_PATH;
  let files = options.files;
  if (!files) {
    const listed = await fetchServedFiles(fetchImpl, base);
    if (!listed.ok) throw new PageModelRefused(listed.reason);
    files = listed.files;
  }
  // One at a time: the model is 70 MB, and each is held until the engine has it.
  const blobs: Blob[] = [];
  for (const file of files.files) blobs.push(await fetchCheckedFile(file, fetchImpl, base));
  const adapter = files.files.some((f) => f.role === 'adapter');
  const engine = await startWllama(blobs, { wasmUrl: options.wasmUrl, threads: options.threads ?? 1, contextSize: options.contextSize ?? 2048, adapter });
  return new PageChatClient(engine, { model: options.model, calibrate: !adapter });
}

/** wllama on the checked files (the model first), without a GPU: its worker runs llama.cpp. */
async function startWllama(blobs: readonly Blob[], options: { readonly wasmUrl: string; readonly threads: number; readonly contextSize: number; readonly adapter: boolean }): Promise<PageEngine> {
  const { Wllama } = await import('@wllama/wllama/esm/index.js');
  const quiet = { debug: () => undefined, log: () => undefined, warn: (...args: unknown[]) => console.warn(...args), error: (...args: unknown[]) => console.error(...args) };
  const wllama = new Wllama({ default: options.wasmUrl }, { suppressNativeLog: true, logger: quiet });
  try {
    await wllama.loadModel([...blobs], {
      n_threads: options.threads,
      n_ctx: options.contextSize,
      n_parallel: 1,
      n_gpu_layers: 0,
      // Keep the whole window of Gemma 3's sliding-window layers, so a prompt's start stays reusable (as in Node).
      swa_full: true,
      ...(options.adapter ? { lora_adapters: [{ path: ADAPTER_PATH_IN_WORKER }] } : {}),
    });
  } catch (err) {
    await wllama.exit().catch(() => undefined);
    throw new PageModelRefused(`the page could not start the model: ${err instanceof Error ? err.message : String(err)}`);
  }
  return {
    complete: (body, signal) => wllama.createCompletion({ ...(body as { prompt: string }), abortSignal: signal, stream: false }),
    close: () => wllama.exit(),
  };
}
