/**
 * How a process reaches a language model. An LlmAccess says whether a model is configured
 * (and if not, why and how to configure one) without contacting it, and opens one
 * connection that every match of the process shares: a chat client, the strategist's
 * settings, the decision cache. Node builds one from its environment (./node/), the page
 * one over the product's proxy (./proxyClient.ts), tests and benchmarks one around a
 * client of their own (fixedLlmAccess). Browser-safe.
 */
import type { DecisionCacheStore, CacheMode } from './cache';
import type { ChatClient } from './chat';
import { KeptUnlessFailed } from './keptUnlessFailed';
import type { AnswerFormat } from './prompt';
import { EVENT_TRIGGERS, type EventTrigger, LIVE_TIMEOUT_MS, MAX_TIMEOUTS_IN_ROW, type SilenceAction, type TimingMode, defaultTimeoutMs } from './timing';

/** Which implementation runs the skills the model chooses: the trained ones or the scripted references. */
export type SkillImplementation = 'rl' | 'scripted';

/** What the strategist needs of the settings (never the address or the key). */
export interface StrategistSettings {
  readonly format: AnswerFormat;
  readonly temperature: number;
  readonly timeoutMs: number;
  readonly rateHz: number;
  readonly events: readonly EventTrigger[];
  /** undefined: the format's default. */
  readonly maxTokens?: number;
  readonly timing: TimingMode;
  readonly skills: SkillImplementation;
  /** Timeouts in a row, where the game waits for answers, before the strategist gives up on the model; 0: never. */
  readonly maxTimeouts: number;
  /** What giving up means: stop the run, or play on without the model. */
  readonly onSilence: SilenceAction;
}

export interface DecisionCache {
  readonly store: DecisionCacheStore;
  readonly mode: CacheMode;
}

export type LlmAvailability =
  | {
      readonly ok: true;
      readonly model: string;
      readonly provider: string;
      readonly settings: StrategistSettings;
      /** For a server: its address without credentials, and whether a key is set (never the key). */
      readonly baseUrl?: string;
      readonly keySet?: boolean;
    }
  | { readonly ok: false; readonly reason: string; readonly help?: string };

export interface LlmConnection {
  readonly client: ChatClient;
  /** Who serves the model, for summaries: e.g. 'openai-compatible http://localhost:11434/v1'. */
  readonly provider: string;
  readonly settings: StrategistSettings;
  /** null: decisions are neither read from nor written to a cache. */
  readonly cache: DecisionCache | null;
  /**
   * True when the model runs in this process (the local engine): other threads of the
   * process reach it through a channel (channel.ts) rather than load their own copy.
   */
  readonly inProcess?: boolean;
  /** What must never leave the server (an API key): the proxy scrubs it from answers and errors. */
  readonly secrets?: readonly string[];
}

/** What an llm variant asks of the model: another model, the local model without its adapter, or another answer format. */
export interface ModelChoice {
  /** A pulled local model's id, or a server's model name; default the configured model. */
  readonly model?: string;
  /**
   * 'none': the local model alone, without its LoRA adapter (the untuned model); another name:
   * an adapter shipped beside the default one (localModels.ts otherAdapters).
   */
  readonly adapter?: string;
  /**
   * The answer format it is asked in: a local model's shipped adapter runs only in the format
   * it was taught (asked another, the model runs alone, as LLM_FORMAT would have it).
   */
  readonly format?: AnswerFormat;
}

export interface LlmAccess {
  /** Configured or not, known without a call to the model. */
  availability(): Promise<LlmAvailability>;
  /** The shared connection; rejects with an LlmUnavailable when no model is configured. */
  connect(): Promise<LlmConnection>;
  /**
   * The same way to the model a variant asks for: another model (`llm:model=smollm2-135m`),
   * the local model without its adapter (`llm:adapter=none`) or with another one shipped for
   * it (`llm:adapter=rules`), or the model that answers a
   * format (`llm:format=json`: the local model alone where its adapter was taught another).
   * This access itself where the choice opens the same model. Absent where the model cannot
   * be chosen (the page's proxy serves the server's model only).
   */
  withModel?(choice: ModelChoice): LlmAccess;
  /**
   * The access whose connection this one shares, asking the same model in another answer
   * format (askedAs); absent where the access owns its connection. Whoever probes or warms
   * each model once reads connectionOwner.
   */
  readonly shares?: LlmAccess;
  /**
   * Free what the connection holds (the local engine's model and context, a channel), and
   * those of the other models withModel opened. Later connects fail; closing twice is harmless.
   */
  close(): Promise<void>;
}

/** No model is configured: the reason, and how to configure one. */
export class LlmUnavailable extends Error {
  constructor(
    readonly reason: string,
    readonly help?: string,
  ) {
    super(help ? `${reason}; ${help}` : reason);
    this.name = 'LlmUnavailable';
  }
}

/** The strategist's settings where nothing says otherwise (the study's: 2 Hz plus events, 0.1). */
export const STRATEGIST_DEFAULTS: StrategistSettings = {
  format: 'compact',
  temperature: 0.1,
  timeoutMs: LIVE_TIMEOUT_MS,
  rateHz: 2,
  events: EVENT_TRIGGERS,
  timing: { kind: 'realtime' },
  skills: 'rl',
  maxTimeouts: MAX_TIMEOUTS_IN_ROW,
  onSilence: 'stop',
};

/**
 * The strategist's settings from those given, each one not given at its default, and the
 * call timeout, where none is given, the timing's own (defaultTimeoutMs: a lockstep run
 * waits 60 s, live play 2 s). Where settings enter (the environment, the page's status, a
 * test's options), so nothing below defaults them again.
 */
export function strategistSettingsOf(given: Partial<StrategistSettings>): StrategistSettings {
  const set = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as Partial<StrategistSettings>;
  const timing = set.timing ?? STRATEGIST_DEFAULTS.timing;
  return { ...STRATEGIST_DEFAULTS, ...set, timing, timeoutMs: set.timeoutMs ?? defaultTimeoutMs(timing) };
}

/** An access that always says the same: no model, for this reason. */
export function noLlmAccess(reason: string, help?: string): LlmAccess {
  return {
    availability: async () => ({ ok: false, reason, ...(help ? { help } : {}) }),
    connect: async () => {
      throw new LlmUnavailable(reason, help);
    },
    close: async () => {},
  };
}

/** An access around a connection made elsewhere (tests, benchmarks): whoever made its client closes it. */
export function fixedLlmAccess(connection: LlmConnection): LlmAccess {
  return {
    availability: async () => ({ ok: true, model: connection.client.model, provider: connection.provider, settings: connection.settings }),
    connect: async () => connection,
    close: async () => {},
  };
}

/**
 * `owner`'s model asked in `format`: the same connection, with the strategist settings in that
 * format. Closing it frees nothing: the connection is the owner's to close.
 */
export function askedAs(owner: LlmAccess, format: AnswerFormat): LlmAccess {
  return {
    availability: async () => {
      const available = await owner.availability();
      return available.ok ? { ...available, settings: { ...available.settings, format } } : available;
    },
    connect: async () => {
      const connection = await owner.connect();
      return { ...connection, settings: { ...connection.settings, format } };
    },
    shares: connectionOwner(owner),
    close: async () => {},
  };
}

/** The access that owns `access`'s connection: itself, or the one it asks in another format. */
export function connectionOwner(access: LlmAccess): LlmAccess {
  return access.shares ?? access;
}

/** What a closed access answers a connect. */
function closedError(): LlmUnavailable {
  return new LlmUnavailable('the language model was closed');
}

/**
 * An access that asks `open` once, when first needed, and shares what it gives; closing it
 * closes the client it opened (once that open has settled, so an engine still loading is
 * freed too). `open` is told when the access closes (`closing`, whose reason is the error
 * to throw), so one that is still asking first starts no engine after.
 */
export function lazyLlmAccess(availability: () => Promise<LlmAvailability>, open: (closing: AbortSignal) => Promise<LlmConnection>): LlmAccess {
  const closing = new AbortController();
  // A failed open is not kept: a server configured later is found on the next try.
  const connection = new KeptUnlessFailed(() => open(closing.signal));
  return {
    availability,
    connect() {
      if (closing.signal.aborted) return Promise.reject(closedError());
      return connection.get();
    },
    async close() {
      closing.abort(closedError());
      const settled = await connection.take()?.catch(() => null);
      await settled?.client.close?.();
    },
  };
}

/**
 * An access known later (a study page learns from its study where its model runs): each call
 * waits for it. Closed before it is given, nothing opens through it: a connect that was
 * waiting for it, or that comes after, is refused.
 */
export function deferredLlmAccess(access: Promise<LlmAccess>): LlmAccess {
  let closed = false;
  return {
    availability: async () => (await access).availability(),
    connect: async () => {
      const given = await access;
      if (closed) throw closedError();
      return given.connect();
    },
    close: async () => {
      closed = true;
      // An access not given yet holds nothing, and nothing reaches it now.
      const settled = await Promise.race([access, Promise.resolve(null)]);
      await settled?.close();
    },
  };
}
