/**
 * Where the page's strategist runs its model: 'server' asks the server's model through the
 * proxy (proxyClient.ts); 'browser' runs it in the page (pageModel.ts) on the files the
 * server lends, or not at all; 'auto' runs it in the page where the page can (cross-origin
 * isolated, WebAssembly and the page's crypto there, and the server lends the files), and
 * asks the server otherwise. The settings (format, rate, timeout, skills) are the server's
 * either way, from its status. Browser-safe.
 */
import { type LlmAccess, type LlmAvailability, LlmUnavailable, lazyLlmAccess } from './access';
import type { ChatClient } from './chat';
import { KeptUnlessFailed } from './keptUnlessFailed';
import { type PageChatClient, type PageModelOptions, PageModelRefused, fetchServedFiles, openPageModel } from './pageModel';
import { systemPrompt } from './prompt';
import { proxyLlmAccess } from './proxyClient';
import type { LlmFiles } from './servedFiles';
import type { TimingMode } from './timing';

export const LLM_RUNS = ['server', 'browser', 'auto'] as const;
export type LlmRuns = (typeof LLM_RUNS)[number];

/**
 * The default: the server's model. Running it in the page costs every participant a 70 MB
 * download (and 2.5 MB of adapter) before the first decision; a study asks for it (studies.md).
 */
export const DEFAULT_LLM_RUNS: LlmRuns = 'server';

type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/**
 * How long the strategist waits for the page's own model, at least (the server's setting
 * where longer). The server's live timeout (2 s) is for its native engine; in the page a
 * decision on one WebAssembly thread took 1.9-4.2 s here (test/e2e/pageLlm.test.ts), so
 * at 2 s most would time out and the team keep stale skills. The page's model answers this
 * page alone, so a slow answer holds nobody else back, and the page says when the model
 * falls behind the game (web/modelPace.ts), offering to wait for it.
 */
export const PAGE_MODEL_TIMEOUT_MS = 10_000;

/** The server's strategist settings, with the page's own model's time to answer. */
function pageModelSettings<S extends { readonly timeoutMs: number }>(settings: S): S {
  return { ...settings, timeoutMs: Math.max(settings.timeoutMs, PAGE_MODEL_TIMEOUT_MS) };
}

/** Why this page cannot run the model itself, or null where it can. */
export function pageModelBlocker(scope: { readonly crossOriginIsolated?: boolean; readonly WebAssembly?: unknown; readonly crypto?: { readonly subtle?: unknown } } = globalThis): string | null {
  if (typeof scope.WebAssembly !== 'object' || scope.WebAssembly === null) return 'this browser has no WebAssembly';
  if (!scope.crypto?.subtle) return "this page cannot check the model's digest (no crypto.subtle: the page is not served over https or from localhost)";
  if (scope.crossOriginIsolated !== true) return 'this page is not cross-origin isolated (its server sends no COOP/COEP headers)';
  return null;
}

export interface PageLlmOptions {
  readonly runs: LlmRuns;
  /** The URL of wllama's wasm, as the page's bundler placed it. */
  readonly wasmUrl: string;
  /** llama.cpp threads in the page; default 1. */
  readonly threads?: number;
  readonly timing?: TimingMode;
  readonly fetch?: FetchLike;
  /** Why the page cannot run the model (tests); default pageModelBlocker(). */
  readonly blocker?: () => string | null;
  /** Starts the page's engine on the files (tests); default openPageModel. */
  readonly openModel?: (options: PageModelOptions) => Promise<Pick<PageChatClient, 'warm' | 'close'> & ChatClient>;
}

/** Who answers, for the strategist panel and summaries. */
export function pageProvider(threads: number): string {
  return `this page (llama.cpp in WebAssembly, ${threads} thread${threads === 1 ? '' : 's'})`;
}

/** The page's way to a model, as `runs` says. */
export function pageLlmAccess(options: PageLlmOptions): LlmAccess {
  const fetchImpl = options.fetch ?? ((input: string, init?: RequestInit) => fetch(input, init));
  const server = proxyLlmAccess({ fetch: fetchImpl, ...(options.timing ? { timing: options.timing } : {}) });
  if (options.runs === 'server') return server;
  const threads = options.threads ?? 1;
  const provider = pageProvider(threads);
  const blocker = options.blocker ?? (() => pageModelBlocker());
  // The server's listing of the files it lends, kept once given; one it failed to give (unreachable, an error status) is asked again next time, as the server may be back.
  const listing = new KeptUnlessFailed(() => fetchServedFiles(fetchImpl), (listed) => !listed.ok);
  /** In the page with these files, or why not. */
  const choose = async (): Promise<{ readonly inPage: true; readonly files: LlmFiles } | { readonly inPage: false; readonly reason: string }> => {
    const why = blocker();
    if (why) return { inPage: false, reason: why };
    const listed = await listing.get();
    return listed.ok ? { inPage: true, files: listed.files } : { inPage: false, reason: listed.reason };
  };
  const refusal = (reason: string) => `the page cannot run the language model itself (the llm team runs it in the browser): ${reason}`;

  const availability = async (): Promise<LlmAvailability> => {
    const asked = await server.availability();
    if (!asked.ok) return asked;
    const chosen = await choose();
    if (chosen.inPage) return { ok: true, model: asked.model, provider, settings: pageModelSettings(asked.settings) };
    return options.runs === 'browser' ? { ok: false, reason: refusal(chosen.reason) } : asked;
  };
  return lazyLlmAccess(availability, async (closing) => {
    const asked = await server.availability();
    if (!asked.ok) throw new LlmUnavailable(asked.reason, asked.help);
    const chosen = await choose();
    // Closed while the server was asked: nothing starts now (the page's engine would load 70 MB only to free it).
    closing.throwIfAborted();
    if (!chosen.inPage) {
      if (options.runs === 'browser') throw new LlmUnavailable(refusal(chosen.reason));
      return server.connect();
    }
    try {
      const client = await (options.openModel ?? openPageModel)({ model: asked.model, wasmUrl: options.wasmUrl, threads, files: chosen.files, fetch: fetchImpl });
      try {
        // The system prompt evaluated before the first decision, as the server's engine does (the first, cold, prompt took 26 s on one thread).
        await client.warm([{ role: 'system', content: systemPrompt(asked.settings.format, 2) }, { role: 'user', content: 'Agent 1:' }]);
      } catch (err) {
        // Its worker holds the 70 MB model: a failed start frees it before anything else is tried.
        await client.close();
        throw err;
      }
      return { client, provider, settings: pageModelSettings(asked.settings), cache: null };
    } catch (err) {
      // Asked to choose, the page asks the server where its own model would not start (a file refused).
      if (options.runs === 'browser' || !(err instanceof PageModelRefused)) throw err;
      console.warn(`${refusal(err.message)}; asking the server's model instead`);
      return server.connect();
    }
  });
}
