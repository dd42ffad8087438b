/**
 * The language-model settings, read and validated in one place. They come from the
 * environment of the process that talks to the model (the CLI, the server); the page never
 * sees them. Browser-safe: the environment is passed in.
 *
 * Where the model runs. A server, when OPENAI_BASE_URL or OPENAI_API_KEY is set, wins;
 * otherwise the embedded local engine runs HILLMIND_LLM_GGUF, or else a pulled model:
 *   OPENAI_BASE_URL   any OpenAI-compatible server (default https://api.openai.com/v1 when
 *                     only OPENAI_API_KEY is set)
 *   OPENAI_API_KEY    may be empty for local servers (Ollama, vLLM, llama.cpp)
 *   LLM_MODEL         with a server, the model name (required), e.g. gemma3:27b; without one,
 *                     the pulled model to run: gemma3-270m (default) or smollm2-135m
 *   HILLMIND_LLM_GGUF without a server: any GGUF file for the local engine (over LLM_MODEL)
 *   HILLMIND_LLM_DIR  where npm run llm:pull puts models, default .cache/llm/models
 *   LLM_THREADS       local engine: CPU threads, default the cores less one (at least 1)
 *   LLM_SEQUENCES     local engine: decisions it works on at once, so concurrent matches share
 *                     one loaded model, default 4
 *   LLM_CONTEXT       local engine: tokens each sequence holds (prompt and answer), default 1024
 *   LLM_COMPACT       local engine: how a compact answer is chosen: scores (default: each
 *                     agent's most likely number, no sampling; calibrated against the model's
 *                     prior when no adapter teaches it) or sample (sampled at LLM_TEMPERATURE)
 *   LLM_ADAPTER       local engine: a LoRA adapter (GGUF) applied to the model, or none; default
 *                     the adapter shipped for the pulled model (models/, npm run llm:tune makes
 *                     one) when it is asked in the format the adapter was taught, none for a
 *                     HILLMIND_LLM_GGUF file
 *
 * How the strategist asks:
 *   LLM_TEMPERATURE   default 0.1
 *   LLM_FORMAT        compact ("1,3"), json (skills and a rationale) or terse (the compact
 *                     answer to the state in one-token codes, for small local models); default
 *                     the format the local model's adapter was taught in (terse for
 *                     gemma3-270m's; for LLM_ADAPTER=<file>, the format its card names, read
 *                     by the Node engine: llm/node withTaughtFormat), else compact
 *   LLM_TIMEOUT_MS    per call, default 2000 (LIVE_TIMEOUT_MS), or 60000 where the game waits for answers
 *                     (LLM_TIMING lockstep or ticks:N: a slow answer costs time, not the decision)
 *   LLM_RATE_HZ       fixed decision rate, default 2 (0: events only)
 *   LLM_EVENTS        all (default), none, or a list of elimination,respawn,contested,low-health,situation
 *   LLM_MAX_TOKENS    answer bound, default 16 (compact) or 120 (json); 0 sends none
 *   LLM_TIMING        headless timing: realtime (default), ticks:N or lockstep
 *   LLM_MAX_TIMEOUTS  where the game waits for answers (lockstep, ticks:N): calls in a row that
 *                     may time out before the run gives up on the model, default 3 (0: never)
 *   LLM_ON_SILENCE    what giving up means: stop (default: the match, or the tournament with
 *                     its records kept for --resume, ends with an error naming the server) or
 *                     continue (the team plays the rest of the match without the model)
 *   LLM_CACHE         decision cache: use (default), refresh or off; the server's proxy follows
 *                     it for the answers its model gives the same every time
 *   LLM_CACHE_DIR     default .cache/llm (the server's cache in its server/ folder)
 *   LLM_SKILLS        the skills the model chooses among: rl (the trained ones, default, as the
 *                     study's LLM+RL and as bt) or scripted
 */
import { z } from 'zod';
import { STRATEGIST_DEFAULTS, type StrategistSettings } from './access';
import { CACHE_MODES, type CacheMode, DEFAULT_CACHE_MODE } from './cache';
import { DEFAULT_LOCAL_MODEL, LOCAL_MODELS, LOCAL_MODEL_IDS, type LocalModelSpec, engineFile, ggufModelName, localModelDir, engineModelPath, shippedAdapterPath, shippedAdapterPaths } from './localModels';
import { ANSWER_FORMATS, type AnswerFormat } from './prompt';
import { EVENT_TRIGGERS, EVENT_TRIGGERS_TEXT, MAX_TIMEOUTS_IN_ROW, SILENCE_ACTIONS, TIMING_HELP, type TimingMode, defaultTimeoutMs, parseEventTriggers, parseHeadlessTiming } from './timing';

/** How the local engine chooses a compact answer's numbers (LLM_COMPACT; llamaClient.ts). */
export const COMPACT_DECODINGS = ['scores', 'sample'] as const;
export type CompactDecoding = (typeof COMPACT_DECODINGS)[number];

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** An OpenAI-compatible server. */
/** The settings a model was chosen with: its format resolved (the model's own where none was given). */
interface ResolvedAsking extends Omit<AskingSettings, 'format' | 'timeoutMs'> {
  readonly format: AnswerFormat;
  readonly timeoutMs: number;
}

export interface ServerLlmSettings extends ResolvedAsking {
  readonly source: 'server';
  readonly baseUrl: string;
  /** '' when the server needs none. Never sent to a page. */
  readonly apiKey: string;
  readonly model: string;
}

/** The embedded local engine (node-llama-cpp) on a GGUF file. */
export interface LocalLlmSettings extends ResolvedAsking {
  readonly source: 'local';
  /** The file's name without .gguf, e.g. gemma-3-270m-q4_k_m. */
  readonly model: string;
  readonly gguf: string;
  /** The pulled model's id (gemma3-270m, ...), or null for a file HILLMIND_LLM_GGUF names. */
  readonly pulled: string | null;
  /** undefined: the cores less one. */
  readonly threads?: number;
  readonly sequences: number;
  readonly contextSize: number;
  readonly compact: CompactDecoding;
  /** A LoRA adapter's GGUF file applied to the model, or null for the model alone. */
  readonly adapter: string | null;
}

export type LlmSettings = ServerLlmSettings | LocalLlmSettings;

export type SettingsResult =
  | { readonly ok: true; readonly settings: LlmSettings }
  | { readonly ok: false; readonly configured: boolean; readonly error: string; readonly help: string };

/** How to fetch the local model or point at another, for a missing GGUF file. */
export const LOCAL_MODEL_HELP =
  'run npm run llm:pull to fetch the local model (Gemma 3 270M, 253 MB), or set HILLMIND_LLM_GGUF=<path to a .gguf file>, or OPENAI_BASE_URL and LLM_MODEL for a model server';

/** How to point Hillmind at a model, for errors, the CLI and the page. */
export const LLM_SETUP_HELP = [
  'with no settings the local model runs: npm run llm:pull fetches it (or set HILLMIND_LLM_GGUF=<path to a .gguf file>);',
  'for a server set OPENAI_BASE_URL and LLM_MODEL (and OPENAI_API_KEY where the server needs one), for example:',
  '  OpenAI:    OPENAI_API_KEY=sk-... LLM_MODEL=gpt-4o-mini',
  '  Ollama:    OPENAI_BASE_URL=http://localhost:11434/v1 LLM_MODEL=gemma3:27b',
  '  vLLM:      OPENAI_BASE_URL=http://localhost:8000/v1 LLM_MODEL=google/gemma-3-27b-it',
  '  llama.cpp: OPENAI_BASE_URL=http://localhost:8080/v1 LLM_MODEL=gemma-3-27b',
].join('\n');

export type Env = Readonly<Record<string, string | undefined>>;

const trimmed = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

const number = (name: string, min: number, max: number) =>
  z.coerce
    .number({ message: `${name} must be a number` })
    .refine((n) => Number.isFinite(n) && n >= min && n <= max, { message: `${name} must be between ${min} and ${max}` });

const integer = (name: string, min: number, max: number) =>
  number(name, min, max).refine(Number.isInteger, { message: `${name} must be a whole number` });

/** How the strategist asks, from the environment's text. */
const askingFromEnv = z.object({
  temperature: number('LLM_TEMPERATURE', 0, 2).default(STRATEGIST_DEFAULTS.temperature),
  format: z.enum(ANSWER_FORMATS, { message: `LLM_FORMAT must be one of ${ANSWER_FORMATS.join(', ')}` }).optional(),
  timeoutMs: number('LLM_TIMEOUT_MS', 1, 600_000).optional(),
  rateHz: number('LLM_RATE_HZ', 0, 50).default(STRATEGIST_DEFAULTS.rateHz),
  events: z
    .string()
    .default('all')
    .transform((v, ctx) => {
      const parsed = parseEventTriggers(v);
      if (!parsed) ctx.addIssue({ code: 'custom', message: `LLM_EVENTS must be all, none or a list of ${EVENT_TRIGGERS_TEXT}` });
      return parsed ?? [];
    }),
  maxTokens: number('LLM_MAX_TOKENS', 0, 100_000).optional(),
  timing: z
    .string()
    .default('realtime')
    .transform((v, ctx) => {
      const parsed = parseHeadlessTiming(v);
      if (!parsed) ctx.addIssue({ code: 'custom', message: `LLM_TIMING must be ${TIMING_HELP}` });
      return parsed ?? ({ kind: 'realtime' } as TimingMode);
    }),
  maxTimeouts: integer('LLM_MAX_TIMEOUTS', 0, 1000).default(MAX_TIMEOUTS_IN_ROW),
  onSilence: z.enum(SILENCE_ACTIONS, { message: `LLM_ON_SILENCE must be one of ${SILENCE_ACTIONS.join(', ')}` }).default('stop'),
  cache: z.enum(CACHE_MODES, { message: `LLM_CACHE must be one of ${CACHE_MODES.join(', ')}` }).default(DEFAULT_CACHE_MODE),
  cacheDir: z.string().optional(),
  skills: z.enum(['scripted', 'rl'], { message: 'LLM_SKILLS must be scripted or rl' }).default(STRATEGIST_DEFAULTS.skills),
});

const ADAPTER_MESSAGE = 'LLM_ADAPTER must be none or the path of a .gguf LoRA adapter';

/** The local engine's settings, from the environment's text. */
const engineFromEnv = z.object({
  threads: integer('LLM_THREADS', 1, 256).optional(),
  sequences: integer('LLM_SEQUENCES', 1, 64).optional(),
  contextSize: integer('LLM_CONTEXT', 256, 131_072).default(1024),
  compact: z.enum(COMPACT_DECODINGS, { message: `LLM_COMPACT must be one of ${COMPACT_DECODINGS.join(', ')}` }).default('scores'),
  adapter: z.string().regex(/\.gguf$/i, ADAPTER_MESSAGE).nullable().optional(),
});

const serverFromEnv = z.object({
  baseUrl: z.url({ protocol: /^https?$/, message: 'OPENAI_BASE_URL must be an http(s) URL, e.g. http://localhost:11434/v1' }),
  apiKey: z.string(),
});

/** A part of the settings as checked: its value, or what is wrong with it (one message a problem). */
const checked = <T extends z.ZodType>(value: T) =>
  z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), value }), z.object({ ok: z.literal(false), issues: z.array(z.string()).min(1) })]);

const timingModeSpec = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('live') }),
  z.object({ kind: z.literal('realtime') }),
  z.object({ kind: z.literal('ticks'), ticks: z.number().int().min(0) }),
  z.object({ kind: z.literal('lockstep') }),
]);

/** The checked values, as plain data (what a worker thread receives and checks again). */
const askingSpec = z.object({
  temperature: z.number(),
  /** undefined: the model's own (the format its shipped adapter was taught in, else compact). */
  format: z.enum(ANSWER_FORMATS).optional(),
  /** undefined: the timing's own (defaultTimeoutMs). */
  timeoutMs: z.number().optional(),
  rateHz: z.number(),
  events: z.array(z.enum(EVENT_TRIGGERS)),
  maxTokens: z.number().optional(),
  timing: timingModeSpec,
  maxTimeouts: z.number().int().min(0),
  onSilence: z.enum(SILENCE_ACTIONS),
  cache: z.enum(CACHE_MODES),
  cacheDir: z.string().optional(),
  skills: z.enum(['scripted', 'rl']),
});
const engineSpec = z.object({
  threads: z.number().int().min(1).optional(),
  sequences: z.number().int().min(1).optional(),
  contextSize: z.number().int().min(1),
  compact: z.enum(COMPACT_DECODINGS),
  /** undefined: the model's default (the adapter shipped for a pulled model, none for a file); null: none. */
  adapter: z.string().nullable().optional(),
});

/**
 * The language-model settings as the environment and the command line give them, each
 * value checked, before a model is chosen: the model LLM_MODEL names, or another one a
 * team variant names (llm:model=...), resolves from it (llmSettingsOf). Plain data, so a
 * worker thread receives it rather than environment strings; what is wrong is kept and
 * said when a language model is wanted, so a command that needs none never fails on it.
 */
export const llmSpecSchema = z.object({
  /** LLM_MODEL: a server's model name, or a pulled local model's id. */
  model: z.string().min(1).optional(),
  /** HILLMIND_LLM_GGUF: any GGUF file for the local engine. */
  gguf: z.string().min(1).optional(),
  /** HILLMIND_LLM_DIR: where npm run llm:pull puts models. */
  modelDir: z.string().min(1),
  /** OPENAI_BASE_URL and OPENAI_API_KEY, where either is set: a server, which wins. */
  server: checked(z.object({ baseUrl: z.string(), apiKey: z.string() })).nullable(),
  asking: checked(askingSpec),
  engine: checked(engineSpec),
});

export type LlmSpec = z.infer<typeof llmSpecSchema>;
export type AskingSettings = z.infer<typeof askingSpec>;
/** The local engine's settings as given, before a model is chosen. */
export type EngineSpec = z.infer<typeof engineSpec>;

type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: string[] };

function check<S extends z.ZodType>(schema: S, input: unknown): Checked<z.output<S>> {
  const parsed = schema.safeParse(input);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: parsed.error.issues.map((i) => i.message) };
}

/** The values without their undefined keys (a setting not given is absent, not undefined). */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Read and check the language-model settings of an environment (the entry point passes its own). */
export function parseLlmSpec(env: Env): LlmSpec {
  const baseUrl = trimmed(env.OPENAI_BASE_URL);
  const apiKey = trimmed(env.OPENAI_API_KEY) ?? '';
  const adapter = trimmed(env.LLM_ADAPTER);
  const model = trimmed(env.LLM_MODEL);
  const gguf = trimmed(env.HILLMIND_LLM_GGUF);
  return {
    ...(model !== undefined ? { model } : {}),
    ...(gguf !== undefined ? { gguf } : {}),
    modelDir: localModelDir(env),
    server: baseUrl || apiKey ? check(serverFromEnv, { baseUrl: baseUrl ?? OPENAI_DEFAULT_BASE_URL, apiKey }) : null,
    asking: mapChecked(
      check(askingFromEnv, {
        temperature: trimmed(env.LLM_TEMPERATURE),
        format: trimmed(env.LLM_FORMAT)?.toLowerCase(),
        timeoutMs: trimmed(env.LLM_TIMEOUT_MS),
        rateHz: trimmed(env.LLM_RATE_HZ),
        events: trimmed(env.LLM_EVENTS),
        maxTokens: trimmed(env.LLM_MAX_TOKENS),
        timing: trimmed(env.LLM_TIMING),
        maxTimeouts: trimmed(env.LLM_MAX_TIMEOUTS),
        onSilence: trimmed(env.LLM_ON_SILENCE)?.toLowerCase(),
        cache: trimmed(env.LLM_CACHE)?.toLowerCase(),
        cacheDir: trimmed(env.LLM_CACHE_DIR),
        skills: trimmed(env.LLM_SKILLS)?.toLowerCase(),
      }),
      defined,
    ),
    engine: mapChecked(
      check(engineFromEnv, {
        threads: trimmed(env.LLM_THREADS),
        sequences: trimmed(env.LLM_SEQUENCES),
        contextSize: trimmed(env.LLM_CONTEXT),
        compact: trimmed(env.LLM_COMPACT),
        adapter: adapter === undefined ? undefined : adapter.toLowerCase() === 'none' ? null : adapter,
      }),
      defined,
    ),
  };
}

function mapChecked<T, U>(c: Checked<T>, f: (value: T) => U): Checked<U> {
  return c.ok ? { ok: true, value: f(c.value) } : c;
}

const issuesOf = (...parts: (Checked<unknown> | null)[]) => parts.flatMap((p) => (p && !p.ok ? p.issues : []));

/** Local engine sequences where LLM_SEQUENCES sets none. */
export const DEFAULT_SEQUENCES = 4;

/**
 * The settings of the model `spec` names, or of `model` (a team variant's llm:model=...: a
 * server's model name, or a pulled local model, over LLM_MODEL and HILLMIND_LLM_GGUF); or
 * why there are none, and how to set one up.
 */
export function llmSettingsOf(spec: LlmSpec, model?: string): SettingsResult {
  const name = model ?? spec.model;
  const invalid = (issues: string[]): SettingsResult => ({ ok: false, configured: true, error: `the language-model settings are invalid: ${issues.join('; ')}`, help: LLM_SETUP_HELP });
  if (spec.server) {
    if (!name) return { ok: false, configured: false, error: 'no language model is configured (LLM_MODEL not set)', help: LLM_SETUP_HELP };
    const issues = issuesOf(spec.asking, spec.server);
    if (!spec.asking.ok || !spec.server.ok) return invalid(issues);
    return { ok: true, settings: { ...resolvedAsking(spec.asking.value), format: spec.asking.value.format ?? STRATEGIST_DEFAULTS.format, source: 'server', ...spec.server.value, model: name } };
  }
  const gguf = model === undefined ? spec.gguf : undefined;
  const adapter = (shipped: string | null) => (spec.engine.ok && spec.engine.value.adapter !== undefined ? spec.engine.value.adapter : shipped);
  let where: Pick<LocalLlmSettings, 'model' | 'gguf' | 'pulled' | 'adapter'>;
  let local: LocalModelSpec | undefined;
  if (gguf) where = { model: ggufModelName(gguf), gguf, pulled: null, adapter: adapter(null) };
  else {
    const id = name ?? DEFAULT_LOCAL_MODEL;
    local = LOCAL_MODELS[id];
    if (!local) {
      return {
        ok: false,
        configured: true,
        error: `LLM_MODEL '${id}' is not a local model (${LOCAL_MODEL_IDS.join(', ')}): set OPENAI_BASE_URL for a model server, or HILLMIND_LLM_GGUF=<path> for a GGUF file`,
        help: LLM_SETUP_HELP,
      };
    }
    // The shipped adapter teaches one format: asked in another (LLM_FORMAT=json), the model runs alone, as it was made to answer that.
    const asked = spec.asking.ok ? spec.asking.value.format : undefined;
    const shipped = asked === undefined || !local.adapterFormat || asked === local.adapterFormat ? shippedAdapterPath(local) : null;
    where = { model: ggufModelName(engineFile(local).file), gguf: engineModelPath(local, spec.modelDir), pulled: id, adapter: adapter(shipped) };
  }
  if (!spec.asking.ok || !spec.engine.ok) return invalid(issuesOf(spec.asking, spec.engine));
  const { sequences, adapter: _named, ...engine } = spec.engine.value;
  const format = spec.asking.value.format ?? taughtFormat(local, where.adapter);
  return { ok: true, settings: { ...resolvedAsking(spec.asking.value), format, source: 'local', ...where, ...engine, sequences: sequences ?? DEFAULT_SEQUENCES } };
}

/** The asking settings with the call timeout resolved: the given one, else the timing's own. */
function resolvedAsking(asking: AskingSettings): AskingSettings & { readonly timeoutMs: number } {
  return { ...asking, timeoutMs: asking.timeoutMs ?? defaultTimeoutMs(asking.timing) };
}

/** Whether the settings run the local model with a LoRA adapter (the reproduction then plays it against the model alone). */
export function runsAdapter(result: SettingsResult): boolean {
  return result.ok && result.settings.source === 'local' && result.settings.adapter !== null;
}

/**
 * The names of the adapters shipped beside the one the settings run (`llm:adapter=<name>`),
 * where they run a pulled model's own adapter: the reproduction plays each against it.
 */
export function otherAdaptersOf(result: SettingsResult): string[] {
  if (!result.ok || result.settings.source !== 'local' || !result.settings.pulled) return [];
  const local = LOCAL_MODELS[result.settings.pulled];
  return local && result.settings.adapter === shippedAdapterPath(local) ? Object.keys(local.otherAdapters ?? {}) : [];
}

/** The format a local model is asked in when LLM_FORMAT is unset: its shipped adapters' where one of them runs, else the default. */
function taughtFormat(local: LocalModelSpec | undefined, adapter: string | null): AnswerFormat {
  return local?.adapterFormat && adapter !== null && shippedAdapterPaths(local).includes(adapter) ? local.adapterFormat : STRATEGIST_DEFAULTS.format;
}

/** The spec without its server: the local engine, whatever server the environment names (the local model's benchmarks). */
export function localLlmSpec(spec: LlmSpec): LlmSpec {
  return { ...spec, server: null };
}

/** Read and validate the settings of an environment; says what is missing or wrong. */
export function readLlmSettings(env: Env): SettingsResult {
  return llmSettingsOf(parseLlmSpec(env));
}

/** What a command line sets over the environment (--llm-timing, --llm-cache, a lockstep run's call timeout). */
export interface LlmFlags {
  readonly timing?: TimingMode;
  readonly cache?: CacheMode;
  readonly timeoutMs?: number;
  /** A run that samples decisions at its own temperature (npm run llm:tune's round of play). */
  readonly temperature?: number;
  /** The format an adapter being judged was taught in (npm run llm:tune). */
  readonly format?: AnswerFormat;
}

/** The spec with the command line's settings over the environment's. */
export function withLlmFlags(spec: LlmSpec, flags: LlmFlags): LlmSpec {
  if (!spec.asking.ok) return spec;
  return { ...spec, asking: { ok: true, value: { ...spec.asking.value, ...defined(flags) } } };
}

/**
 * The spec with local engine sizes where the environment sets none (a tournament gives
 * every language-model team in flight a sequence; LLM_THREADS and LLM_SEQUENCES still win).
 */
export function withEngineDefaults(spec: LlmSpec, defaults: { readonly threads: number; readonly sequences: number }): LlmSpec {
  if (!spec.engine.ok) return spec;
  const { threads, sequences } = spec.engine.value;
  return { ...spec, engine: { ok: true, value: { ...spec.engine.value, threads: threads ?? defaults.threads, sequences: sequences ?? defaults.sequences } } };
}

/** The spec with these local engine settings over the environment's (npm run llm:tune tries its adapters so). */
export function withEngine(spec: LlmSpec, engine: Partial<EngineSpec>): LlmSpec {
  if (!spec.engine.ok) return spec;
  return { ...spec, engine: { ok: true, value: { ...spec.engine.value, ...defined(engine) } } };
}

/** The base URL without credentials or query, safe to show. */
export function publicBaseUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/$/, '')}`;
  } catch {
    return '(invalid URL)';
  }
}

/** The strategist's part of validated settings (never the address or the key). */
export function strategistSettings(settings: LlmSettings): StrategistSettings {
  return {
    format: settings.format,
    temperature: settings.temperature,
    timeoutMs: settings.timeoutMs,
    rateHz: settings.rateHz,
    events: settings.events,
    timing: settings.timing,
    skills: settings.skills,
    maxTimeouts: settings.maxTimeouts,
    onSilence: settings.onSilence,
    ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
  };
}
