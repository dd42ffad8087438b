/**
 * What a Node process needs to talk to a model: the SDK client and the decision cache on
 * disk. Node only (the page uses proxyClient.ts); loaded on demand so pages never bundle it.
 */
import { OpenAiChatClient } from './client';
import { FileCacheStore, defaultCacheDir } from './fileCache';
import type { LlmSettings } from './settings';

export { OpenAiChatClient } from './client';
export { FileCacheStore, defaultCacheDir } from './fileCache';

export function createOpenAiClient(settings: LlmSettings): OpenAiChatClient {
  // The SDK bound is a backstop: the strategist aborts at settings.timeoutMs itself.
  return new OpenAiChatClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey, model: settings.model, timeoutMs: Math.max(settings.timeoutMs * 2, 5000) });
}

export function openCacheStore(settings: Pick<LlmSettings, 'cacheDir'>): FileCacheStore {
  return FileCacheStore.at(settings.cacheDir ?? defaultCacheDir());
}
