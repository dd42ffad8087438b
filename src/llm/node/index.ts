/**
 * How a Node process reaches a language model: settings from the environment it is given,
 * then the OpenAI SDK client for a configured server, or else the embedded local engine on
 * a GGUF file (one per process, loaded on first use), and the decision cache on disk. Node
 * only (the page uses proxyClient.ts); never imported by a page.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { type LlmAccess, type LlmAvailability, LlmUnavailable, type ModelChoice, askedAs, lazyLlmAccess } from '../access';
import type { ChatClient } from '../chat';
import { ChannelChatClient } from './channel';
import { OpenAiChatClient } from './openaiClient';
import { FileCacheStore, defaultCacheDir } from './fileCache';
import { LlamaChatClient } from './llamaClient';
import { LocalEngine } from './localEngine';
import { type AdapterCard, cardPathOf, readAdapterCard } from './adapterCard';
import { DEFAULT_LOCAL_MODEL, LOCAL_MODELS, adaptedModelName, engineFile, namedAdapterPath, shippedAdapterPaths } from '../localModels';
import { type AnswerFormat, systemPrompt } from '../prompt';
import { sdkTimeoutMs } from '../timing';
import { isVerified } from './pull';
import {
  LLM_SETUP_HELP,
  LOCAL_MODEL_HELP,
  type LlmSettings,
  type LlmSpec,
  type LocalLlmSettings,
  type ServerLlmSettings,
  type SettingsResult,
  llmSettingsOf,
  publicBaseUrl,
  strategistSettings,
  withEngine,
  withLlmFlags,
} from '../settings';
import { countOf } from '../../sim';

export { OpenAiChatClient } from './openaiClient';
export { FileCacheStore, defaultCacheDir } from './fileCache';

export function createOpenAiClient(settings: ServerLlmSettings): OpenAiChatClient {
  return new OpenAiChatClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey, model: settings.model, timeoutMs: sdkTimeoutMs(settings.timeoutMs) });
}

export function openCacheStore(settings: Pick<LlmSettings, 'cacheDir'>): FileCacheStore {
  return FileCacheStore.at(settings.cacheDir ?? defaultCacheDir());
}

/** The local engine's threads where LLM_THREADS says none: the cores less one, at least one. */
export function localThreads(settings: LocalLlmSettings): number {
  return settings.threads ?? Math.max(1, availableParallelism() - 1);
}

/** Who serves the model, for summaries and the page's status. */
export function providerOf(settings: LlmSettings): string {
  if (settings.source === 'server') return `openai-compatible ${publicBaseUrl(settings.baseUrl)}`;
  const threads = localThreads(settings);
  return `local llama.cpp (CPU, ${countOf(threads, 'thread')})`;
}

/** Whether the local model's file is there (and, where it was pulled, unchanged since), without loading it. */
export function localAvailability(settings: LocalLlmSettings): { readonly ok: true } | { readonly ok: false; readonly reason: string; readonly help: string } {
  const spec = settings.pulled ? LOCAL_MODELS[settings.pulled] : undefined;
  if (spec && !isVerified(engineFile(spec), settings.gguf)) {
    return {
      ok: false,
      reason: `the local model ${settings.pulled} is not pulled yet, or ${settings.gguf} changed since npm run llm:pull verified it (run npm run llm:pull)`,
      help: LLM_SETUP_HELP,
    };
  }
  if (!spec && !existsSync(settings.gguf)) return { ok: false, reason: `HILLMIND_LLM_GGUF names ${settings.gguf}, which does not exist`, help: LLM_SETUP_HELP };
  if (settings.adapter !== null && !existsSync(settings.adapter)) {
    return { ok: false, reason: `the LoRA adapter ${settings.adapter} does not exist`, help: 'set LLM_ADAPTER=<path to a .gguf adapter> (npm run llm:tune makes one), or LLM_ADAPTER=none for the model alone' };
  }
  if (settings.adapter !== null) {
    const shipped = settings.pulled && LOCAL_MODELS[settings.pulled] ? shippedAdapterPaths(LOCAL_MODELS[settings.pulled]!) : [];
    const problem = adapterProblem(settings.adapter, { cardRequired: shipped.some((path) => resolve(path) === resolve(settings.adapter!)) });
    if (problem) return { ok: false, reason: problem, help: 'restore the shipped adapter and its card (git checkout models/), set LLM_ADAPTER to another adapter, or LLM_ADAPTER=none for the model alone' };
  }
  return { ok: true };
}

/**
 * An adapter file's SHA-256, read and hashed on every call (the shipped one is 2.5 MB, about
 * 12 ms): as with the pulled model (digest.ts), no size or modification time stands in for
 * the bytes, since whoever flips a byte can keep both.
 */
export function adapterSha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/**
 * Why an adapter must not be served, or null: a card beside it (the same name, .json) must
 * name its SHA-256 (a flipped byte, or a changed card, is refused); the shipped adapter must
 * have its card. An adapter without a card (one npm run llm:tune is trying) is served as it is.
 */
export function adapterProblem(path: string, options: { readonly cardRequired: boolean }): string | null {
  const cardPath = cardPathOf(path);
  if (!existsSync(cardPath)) return options.cardRequired ? `the LoRA adapter ${path} has no card: ${cardPath} is missing, so its SHA-256 cannot be checked` : null;
  let card: AdapterCard;
  try {
    card = readAdapterCard(cardPath);
  } catch (err) {
    return (err as Error).message;
  }
  const sha256 = adapterSha256(path);
  if (sha256 === card.sha256) return null;
  return `the LoRA adapter ${path} is not the one its card ${cardPath} describes: its SHA-256 is ${sha256}, the card says ${card.sha256}; the file is corrupted or was replaced`;
}

/**
 * The local model's name in summaries and the decision cache: the file's, and with an
 * adapter its name and the start of its digest, so a retuned adapter never reads the
 * answers cached for the one before it.
 */
export function localModelName(settings: LocalLlmSettings): string {
  if (settings.adapter === null || !existsSync(settings.adapter)) return settings.model;
  return adaptedModelName(settings.model, settings.adapter, adapterSha256(settings.adapter));
}

/** Load the engine on the settings' file and ready a sequence or two with the system prompt. */
export async function openLocalClient(settings: LocalLlmSettings): Promise<LlamaChatClient> {
  const engine = await LocalEngine.load({
    gguf: settings.gguf,
    model: localModelName(settings),
    ...(settings.adapter !== null ? { adapter: settings.adapter } : {}),
    threads: localThreads(settings),
    sequences: settings.sequences,
    contextSize: settings.contextSize,
    help: LOCAL_MODEL_HELP,
    // A pulled model is pinned: its bytes are checked before they are served.
    ...(settings.pulled && LOCAL_MODELS[settings.pulled] ? { sha256: engineFile(LOCAL_MODELS[settings.pulled]!).sha256 } : {}),
  });
  const client = new LlamaChatClient(engine, { compact: settings.compact, calibrate: settings.adapter === null });
  // The first decisions of a two-agent team then evaluate only their state.
  await client.warm([{ role: 'system', content: systemPrompt(settings.format, 2) }, { role: 'user', content: 'Agent 1:' }], Math.min(2, settings.sequences));
  return client;
}

export interface NodeLlmOptions {
  /** The settings the entry point read from its environment and command line. */
  readonly spec: LlmSpec;
  /** The client for a configured server; default the OpenAI SDK's. */
  readonly createClient?: (settings: ServerLlmSettings) => ChatClient;
  /** The local engine's client; default one loaded on the settings' file. */
  readonly openLocal?: (settings: LocalLlmSettings) => Promise<ChatClient>;
  /**
   * A channel (channel.ts) where this process's local engine already answers: a tournament's
   * worker threads ask the coordinator's engine there instead of loading their own.
   */
  readonly engineChannel?: string;
}

/**
 * The process's way to its language model. Other models (llm:model=...) are reached the
 * same way, each opened once for the process (never over another thread's channel: that
 * serves the default model); closing it closes them all.
 */
export function nodeLlmAccess(options: NodeLlmOptions): LlmAccess {
  const defaults = withTaughtFormat(llmSettingsOf(options.spec), askedFormat(options.spec));
  const access = nodeLlmAccessOnce(options, defaults);
  // Each other model opened, by modelKey, with the settings it was opened on.
  const others = new Map<string, { readonly access: LlmAccess; readonly settings: SettingsResult }>();
  // Each model asked in a format other than the one it was opened on, by modelKey and format.
  const views = new Map<string, LlmAccess>();
  const ours: LlmAccess = {
    ...access,
    withModel(choice) {
      const settings = chosenSettings(options.spec, choice);
      // A choice that opens the same model (a format that keeps the adapter, or any format
      // of a server's model or of a model alone) shares its connection.
      const key = modelKey(settings);
      let owner: { readonly access: LlmAccess; readonly settings: SettingsResult } | undefined = key === modelKey(defaults) ? { access: ours, settings: defaults } : others.get(key);
      if (!owner) {
        const { engineChannel: _channel, ...rest } = options;
        others.set(key, (owner = { access: nodeLlmAccessOnce(rest, settings), settings }));
      }
      // Asked in another format than the model was opened on, it answers in its own, whichever variant opened the model first.
      const format = formatOf(settings);
      if (format === undefined || format === formatOf(owner.settings)) return owner.access;
      const viewKey = `${key} ${format}`;
      let view = views.get(viewKey);
      if (!view) views.set(viewKey, (view = { ...askedAs(owner.access, format), withModel: ours.withModel }));
      return view;
    },
    async close() {
      const all = [access, ...[...others.values()].map((o) => o.access)];
      others.clear();
      views.clear();
      await Promise.all(all.map((a) => a.close()));
    },
  };
  return ours;
}

function formatOf(result: SettingsResult): AnswerFormat | undefined {
  return result.ok ? result.settings.format : undefined;
}

/** The format LLM_FORMAT (or a variant) asks, if it asks one. */
function askedFormat(spec: LlmSpec): AnswerFormat | undefined {
  return spec.asking.ok ? spec.asking.value.format : undefined;
}

/**
 * An adapter is asked in the format it was taught, where none is asked: a shipped adapter's
 * format is known (settings.ts), another's (LLM_ADAPTER=<file>) is its card's. Asked in
 * another, a terse-taught adapter loses every game: it reads the prompt as noise.
 */
export function withTaughtFormat(result: SettingsResult, asked: AnswerFormat | undefined): SettingsResult {
  if (asked !== undefined || !result.ok || result.settings.source !== 'local' || result.settings.adapter === null) return result;
  const cardPath = cardPathOf(result.settings.adapter);
  if (!existsSync(cardPath)) return result;
  try {
    return { ok: true, settings: { ...result.settings, format: readAdapterCard(cardPath).prompt } };
  } catch {
    // A card that does not parse makes the adapter unavailable, with the reason (localAvailability).
    return result;
  }
}

/** What decides the model a connection opens: its settings but the answer format, which the strategist sets per request. */
function modelKey(result: SettingsResult): string {
  if (!result.ok) return JSON.stringify(result);
  const settings: Record<string, unknown> = { ...result.settings, format: null };
  // In one order of keys: settings resolved along different paths (a variant's format over the spec's) list them differently.
  return JSON.stringify(Object.keys(settings).sort().map((key) => [key, settings[key]]));
}

/**
 * The settings of a chosen model: asked in its format (a local model's shipped adapter runs
 * only in the format it was taught); adapter=none runs the local model alone, adapter=<name>
 * with another adapter shipped for it (a server's model has no adapter here).
 */
function chosenSettings(spec: LlmSpec, choice: ModelChoice): SettingsResult {
  const asked = choice.format ? withLlmFlags(spec, { format: choice.format }) : spec;
  const { adapter } = choice;
  if (adapter === undefined) return withTaughtFormat(llmSettingsOf(asked, choice.model), askedFormat(asked));
  const refused = (error: string): SettingsResult => ({ ok: false, configured: true, error, help: LLM_SETUP_HELP });
  if (spec.server) {
    return refused(`adapter=${adapter} names a LoRA adapter of the local model (none: the model without one); a server's model has no adapter here`);
  }
  if (adapter === 'none') return llmSettingsOf(withEngine(asked, { adapter: null }), choice.model);
  // A named adapter belongs to a pulled model: a GGUF file of one's own takes its adapter by path.
  if (spec.gguf !== undefined && choice.model === undefined) {
    return refused(`adapter=${adapter} names an adapter shipped for a pulled model, but HILLMIND_LLM_GGUF runs ${spec.gguf}: set LLM_ADAPTER=<path to a .gguf adapter> instead`);
  }
  const id = choice.model ?? spec.model ?? DEFAULT_LOCAL_MODEL;
  const local = LOCAL_MODELS[id];
  const path = local ? namedAdapterPath(local, adapter) : null;
  if (!local || !path) {
    const names = ['none', ...Object.keys(local?.otherAdapters ?? {})];
    return { ok: false, configured: true, error: `adapter=${adapter}: the local model ${id} ships no adapter of that name`, help: `llm:adapter= takes one of: ${names.join(', ')} (src/llm/localModels.ts otherAdapters)` };
  }
  // An adapter answers in the format it was taught only (asked json, the default adapter wrote no valid answer).
  const format = choice.format ?? (spec.asking.ok ? spec.asking.value.format : undefined);
  if (format !== undefined && local.adapterFormat && format !== local.adapterFormat) {
    return refused(`adapter=${adapter} was taught the ${local.adapterFormat} format, and is asked ${format}: drop format=${format} (or LLM_FORMAT), or take adapter=none for the model alone in that format`);
  }
  return llmSettingsOf(withEngine(asked, { adapter: path }), choice.model);
}

function nodeLlmAccessOnce(options: NodeLlmOptions, result: SettingsResult): LlmAccess {
  const createClient = options.createClient ?? createOpenAiClient;
  const openLocal = options.openLocal ?? openLocalClient;
  let modelName: string | undefined;
  const nameOf = (settings: LlmSettings) => (modelName ??= settings.source === 'local' ? localModelName(settings) : settings.model);
  const availability = async (): Promise<LlmAvailability> => {
    if (!result.ok) return { ok: false, reason: result.error, help: result.help };
    const { settings } = result;
    if (settings.source === 'local') {
      const local = localAvailability(settings);
      if (!local.ok) return local;
    }
    return {
      ok: true,
      model: nameOf(settings),
      provider: providerOf(settings),
      settings: strategistSettings(settings),
      ...(settings.source === 'server' ? { baseUrl: publicBaseUrl(settings.baseUrl), keySet: settings.apiKey !== '' } : {}),
    };
  };
  return lazyLlmAccess(availability, async () => {
    const available = await availability();
    if (!available.ok) throw new LlmUnavailable(available.reason, available.help);
    if (!result.ok) throw new LlmUnavailable(result.error, result.help);
    const { settings } = result;
    let client: ChatClient;
    if (settings.source === 'server') client = createClient(settings);
    else if (options.engineChannel) client = new ChannelChatClient(options.engineChannel, nameOf(settings));
    else client = await openLocal(settings);
    return {
      client,
      provider: providerOf(settings),
      settings: strategistSettings(settings),
      cache: settings.cache === 'off' ? null : { store: openCacheStore(settings), mode: settings.cache },
      inProcess: settings.source === 'local' && !options.engineChannel,
      ...(settings.source === 'server' && settings.apiKey ? { secrets: [settings.apiKey] } : {}),
    };
  });
}
