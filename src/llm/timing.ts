/**
 * When a strategist's answer applies, in game ticks, and what asks for a decision.
 *
 * Timing modes:
 * - live: the page's real-time play. The game never waits; an answer applies at the first
 *   tick after it arrives. (Where the person asks the page to wait for the model, its
 *   strategists play lockstep until asked to stop: LlmStrategist.setWaiting.)
 * - realtime: a headless emulation of live play at 1x. An answer that took L ms applies
 *   at requestTick + ceil(L / tick length); while a call is out the simulation runs no
 *   further ahead of the wall clock than that mapping allows, so the result is what live
 *   play at 1x would have given, however fast the simulation runs otherwise.
 * - ticks:N: an answer applies exactly N ticks after its request (the simulation waits if it
 *   is not there yet). Reproducible whatever the server's speed.
 * - lockstep: the simulation waits for each answer, which applies at its request tick
 *   (ticks:0; the study's setting, as if the model answered instantly).
 */

export type TimingMode =
  | { readonly kind: 'live' }
  | { readonly kind: 'realtime' }
  | { readonly kind: 'ticks'; readonly ticks: number }
  | { readonly kind: 'lockstep' };

export const TIMING_HELP = 'realtime, ticks:N (N >= 0 ticks of delay) or lockstep';

/** Parse `realtime`, `ticks:N`, `lockstep` (and `live`, the page's mode); null when invalid. */
export function parseTimingMode(text: string): TimingMode | null {
  const value = text.trim().toLowerCase();
  if (value === 'live' || value === 'realtime' || value === 'lockstep') return { kind: value };
  const m = /^ticks:(\d{1,6})$/.exec(value);
  return m ? { kind: 'ticks', ticks: Number(m[1]) } : null;
}

/** The modes a headless run may choose (live needs a frame loop that yields to the network). */
export function parseHeadlessTiming(text: string): TimingMode | null {
  const mode = parseTimingMode(text);
  return mode && mode.kind !== 'live' ? mode : null;
}

/** Ticks of delay fixed in advance, or null when the delay follows the wall clock. */
export function fixedDelayTicks(mode: TimingMode): number | null {
  if (mode.kind === 'lockstep') return 0;
  if (mode.kind === 'ticks') return mode.ticks;
  return null;
}

/**
 * The strategist's call timeout where the game does not wait for answers (live play,
 * realtime): an answer later than this is stale. The one default of LLM_TIMEOUT_MS and of
 * StrategistSettings.timeoutMs; the bounds around a call below derive from the timeout.
 */
export const LIVE_TIMEOUT_MS = 2000;

/**
 * Where the game waits for answers (lockstep, ticks:N), a slow answer costs time, never the
 * decision: a busy CPU (a tournament's episodes in flight on one local model) must not turn
 * into lost decisions under the live call timeout.
 */
export const WAITING_TIMEOUT_MS = 60_000;

/** A call's timeout where none is set: WAITING_TIMEOUT_MS where the game waits for answers, else LIVE_TIMEOUT_MS (a later answer is stale). */
export function defaultTimeoutMs(mode: TimingMode): number {
  return fixedDelayTicks(mode) === null ? LIVE_TIMEOUT_MS : WAITING_TIMEOUT_MS;
}

/** The least a bound around a call allows: a server's connection and a model's first load fit in it. */
const LEAST_BOUND_MS = 5000;

/** The OpenAI SDK's own bound on a call: a backstop (the strategist aborts at `timeoutMs` first), twice the timeout, at least 5 s. */
export function sdkTimeoutMs(timeoutMs: number): number {
  return Math.max(timeoutMs * 2, LEAST_BOUND_MS);
}

/**
 * How long the server's proxy waits for the model on the page's behalf: the timeout and
 * half again, plus 0.5 s for the way there and back, so the page (which aborts at the
 * timeout) gives up first and the proxy never ends an answer the page still awaits.
 */
export function proxyTimeoutMs(timeoutMs: number): number {
  return Math.round(timeoutMs * 1.5) + 500;
}

/** The bound on a tournament's pre-flight call to the model: three timeouts, at least 5 s (a model may load on first use). */
export function preflightTimeoutMs(timeoutMs: number): number {
  return Math.max(timeoutMs * 3, LEAST_BOUND_MS);
}

/**
 * Calls in a row that may time out, where the game waits for answers (lockstep, ticks:N),
 * before the strategist gives up on the model (LLM_MAX_TIMEOUTS; 0: never). Each such call
 * holds the match for the whole timeout (60 s by default): against a server that never
 * answers, a match would take an hour and a tournament days, where three in a row already
 * say the server is gone.
 */
export const MAX_TIMEOUTS_IN_ROW = 3;

/** What a run does when the model has not answered MAX_TIMEOUTS_IN_ROW calls in a row (LLM_ON_SILENCE). */
export const SILENCE_ACTIONS = ['stop', 'continue'] as const;
/** stop: the match (and a tournament) ends with an error naming the server; continue: the team plays on without the model, keeping its skills. */
export type SilenceAction = (typeof SILENCE_ACTIONS)[number];

/** The model stopped answering where the game waits for it: the run stops (LLM_ON_SILENCE=stop). */
export class LlmSilent extends Error {
  constructor(
    readonly model: string,
    readonly provider: string,
    readonly timeouts: number,
    timeoutMs: number,
  ) {
    super(
      `the language model ${model} (${provider}) did not answer ${timeouts} calls in a row, each given ${timeoutMs} ms, while the match waited for it: stopped. ` +
        'Check that the server runs and answers; or set LLM_ON_SILENCE=continue to play on without the model (its team keeps its skills), ' +
        `or LLM_MAX_TIMEOUTS to allow more timeouts in a row (now ${timeouts}; 0: never stop)`,
    );
    this.name = 'LlmSilent';
  }
}

/** LlmSilent's message, which is all of it that crosses a thread (a tournament's episode threads keep no error class). */
const SILENT_MESSAGE = /^the language model .* did not answer \d+ calls in a row/;

/** Whether an error's message, here or from another thread or a queue job, is LlmSilent's. */
export function isLlmSilentMessage(message: string): boolean {
  return SILENT_MESSAGE.test(message);
}

/** Game ticks that `ms` of wall-clock latency spans at 1x: at least one (an answer arrives after its request). */
export function latencyTicks(ms: number, tickHz: number): number {
  return Math.max(1, Math.ceil((Math.max(0, ms) * tickHz) / 1000 - 1e-9));
}

/** The wall-clock milliseconds that `ticks` game ticks last at 1x. */
export function ticksToMs(ticks: number, tickHz: number): number {
  return (ticks * 1000) / tickHz;
}

/**
 * What can ask for a decision besides the fixed rate. `situation`: a fact of an own agent's
 * line changed (alive, health band, zone band, in the zone, an enemy or a pickup seen and
 * its band), which is all the tree's rules read. At 2 Hz alone a strategist that answers
 * exactly by those rules took 32% of the decisive games against bt (24-51-25 over 100
 * games); asked every tick it took 48% (32-35-33), so a strategist should hear of every
 * change, not only of the next half second.
 */
export const EVENT_TRIGGERS = ['elimination', 'respawn', 'contested', 'low-health', 'situation'] as const;

/** The trigger names as a help text's list: "elimination, respawn, ...". */
export const EVENT_TRIGGERS_TEXT = EVENT_TRIGGERS.join(', ');
export type EventTrigger = (typeof EVENT_TRIGGERS)[number];
export type Trigger = 'periodic' | EventTrigger;

/** Parse `all`, `none` or a comma list of trigger names; null when a name is unknown. */
export function parseEventTriggers(text: string): EventTrigger[] | null {
  const value = text.trim().toLowerCase();
  if (value === 'all') return [...EVENT_TRIGGERS];
  if (value === 'none' || value === '') return [];
  const names = value.split(',').map((s) => s.trim());
  return names.every((n): n is EventTrigger => (EVENT_TRIGGERS as readonly string[]).includes(n)) ? [...new Set(names)] : null;
}
