/**
 * How a Node process reaches a language model: settings from the environment it is given,
 * the OpenAI SDK client for the configured server, the decision cache on disk. Node only
 * (the page uses proxyClient.ts); never imported by a page.
 */
import { type LlmAccess, LlmUnavailable, lazyLlmAccess } from './access';
import type { CacheMode } from './cache';
import type { ChatClient } from './chat';
import { OpenAiChatClient } from './client';
import { FileCacheStore, defaultCacheDir } from './fileCache';
import { type Env, type LlmSettings, publicBaseUrl, readLlmSettings, strategistSettings } from './settings';
import type { TimingMode } from './timing';

export { OpenAiChatClient } from './client';
export { FileCacheStore, defaultCacheDir } from './fileCache';

export function createOpenAiClient(settings: LlmSettings): OpenAiChatClient {
  // The SDK bound is a backstop: the strategist aborts at settings.timeoutMs itself.
  return new OpenAiChatClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey, model: settings.model, timeoutMs: Math.max(settings.timeoutMs * 2, 5000) });
}

export function openCacheStore(settings: Pick<LlmSettings, 'cacheDir'>): FileCacheStore {
  return FileCacheStore.at(settings.cacheDir ?? defaultCacheDir());
}

/** What a command line may set over the environment (--llm-timing, --llm-cache). */
export interface LlmOverrides {
  readonly timing?: TimingMode;
  readonly cache?: CacheMode;
}

export interface NodeLlmOptions {
  readonly env: Env;
  readonly overrides?: LlmOverrides;
  /** The client for validated settings; default the OpenAI SDK's. */
  readonly createClient?: (settings: LlmSettings) => ChatClient;
}

/** The settings the environment and the overrides give, or why there are none. */
export function nodeLlmSettings(env: Env, overrides: LlmOverrides = {}): ReturnType<typeof readLlmSettings> {
  const result = readLlmSettings(env);
  if (!result.ok) return result;
  return { ok: true, settings: { ...result.settings, ...(overrides.timing ? { timing: overrides.timing } : {}), ...(overrides.cache ? { cache: overrides.cache } : {}) } };
}

export function nodeLlmAccess(options: NodeLlmOptions): LlmAccess {
  const result = nodeLlmSettings(options.env, options.overrides);
  const createClient = options.createClient ?? createOpenAiClient;
  const provider = (settings: LlmSettings) => `openai-compatible ${publicBaseUrl(settings.baseUrl)}`;
  return lazyLlmAccess(
    async () =>
      result.ok
        ? { ok: true, model: result.settings.model, provider: provider(result.settings), settings: strategistSettings(result.settings) }
        : { ok: false, reason: result.error, help: result.help },
    async () => {
      if (!result.ok) throw new LlmUnavailable(result.error, result.help);
      const { settings } = result;
      return {
        client: createClient(settings),
        provider: provider(settings),
        settings: strategistSettings(settings),
        cache: settings.cache === 'off' ? null : { store: openCacheStore(settings), mode: settings.cache },
      };
    },
  );
}
