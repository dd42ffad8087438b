/**
 * The language-model strategist and the `llm` team.
 *
 * For one team, the strategist writes the prompt from the discretised situation, asks an
 * OpenAI-compatible model (through a ChatClient: the SDK in Node, the product's proxy in
 * the page), and turns the answer into one skill per agent. It asks at a fixed rate (2 Hz
 * by default) and when events happen (an elimination, a respawn, the zone becoming
 * contested, an own agent's health dropping LOW). At most one call is out at a time;
 * what falls due meanwhile is folded into the next request.
 *
 * When an answer applies follows the timing mode (see src/llm/timing.ts): in live play at
 * the tick it arrives; headless at the tick real-time play would have reached
 * (`realtime`), after a fixed delay (`ticks:N`) or at once, the match waiting
 * (`lockstep`). Every applied decision reaches the match with its tick and timing, so
 * replays hold it and reproduce without the model.
 *
 * Whatever fails (a timeout, a 429, a 5xx, the network, an empty, garbled or invalid
 * answer) the team keeps its skills and the episode goes on; failures are counted by kind
 * and repeated call failures back off (a 429's Retry-After is honoured).
 */
import {
  type AnswerFormat,
  type CacheKey,
  type CacheMode,
  type ChatClient,
  ChatError,
  type ChatResponse,
  type DecisionCacheStore,
  type EventTrigger,
  EVENT_TRIGGERS,
  type FailureKind,
  LlmCounters,
  type LlmCountersSnapshot,
  type ParsedAnswer,
  ProxyChatClient,
  type TimingMode,
  type Trigger,
  buildRequest,
  cacheKey,
  fetchLlmStatus,
  fixedDelayTicks,
  latencyTicks,
  parseAnswer,
  processEnv,
  readLlmSettings,
  ticksToMs,
  type Env,
  type LlmSettings,
} from '../llm';
import { type Team, type World, type ZoneStatus, healthLevel, teamSituation } from '../sim';
import { SCRIPTED_SKILLS, type SkillId, type SkillSet, loadSkillSet } from '../skills';
import { type Decision, type DecisionSource, type TeamContext, type TeamController, andThen } from './controller';
import { type DecisionTiming, HierarchicalController, type Strategist, type StrategistAnswer } from './hierarchical';
import type { TeamEntry } from './registry';

export const LLM_TEAM_DESCRIPTION =
  'A language model choosing each agent\'s skill at 2 Hz and on events over the trained skills (the study\'s LLM+RL; LLM_SKILLS=scripted for the scripted ones).';

export interface LlmStrategistOptions {
  readonly client: ChatClient;
  /** Game ticks per second (the config's tickHz). */
  readonly tickHz: number;
  /** 'compact' ("1,3", default) or 'json' (skills and a rationale, structured output). */
  readonly format?: AnswerFormat;
  /** Default 0.1, the study's. */
  readonly temperature?: number;
  /** Answer bound; default per format; 0 sends none. */
  readonly maxTokens?: number;
  /** Default realtime (headless); the page uses live. */
  readonly timing?: TimingMode;
  /** Fixed decision rate; default 2 Hz; 0 asks on events only. */
  readonly rateHz?: number;
  /** Events that ask for a decision; default all. */
  readonly events?: readonly EventTrigger[];
  /** Per call; default 2000 ms. */
  readonly timeoutMs?: number;
  readonly cache?: { readonly store: DecisionCacheStore; readonly mode: CacheMode };
  /** Least ticks between a request and one that only events ask for; default 5 (0.1 s). */
  readonly eventGapTicks?: number;
  /** Longest back-off after repeated failures, in seconds of play; default 5. */
  readonly maxBackoffSeconds?: number;
  /** Wall clock in ms (tests inject one); default performance.now. */
  readonly now?: () => number;
  /** Told of every answer or failure as it applies (the strategist panel). */
  readonly onRecord?: (record: LlmDecisionRecord) => void;
}

/** One request's fate, for the panel and logs. */
export interface LlmDecisionRecord {
  readonly team: Team;
  readonly requestTick: number;
  /** The tick the answer (or the failure) took effect. */
  readonly applyTick: number;
  readonly trigger: string;
  /** Wall-clock ms of the call; null when it never answered (timeout, network). */
  readonly latencyMs: number | null;
  readonly cached: boolean;
  readonly ok: boolean;
  readonly skills?: readonly SkillId[];
  readonly rationale?: string;
  readonly failure?: FailureKind;
  readonly reason?: string;
}

type Outcome =
  | { readonly kind: 'answer'; readonly elapsedMs: number; readonly latencyMs: number; readonly cached: boolean; readonly parsed: ParsedAnswer }
  | { readonly kind: 'failure'; readonly elapsedMs: number; readonly failure: FailureKind; readonly reason: string; readonly retryAfterMs?: number }
  | { readonly kind: 'abandoned'; readonly elapsedMs: number };

interface Pending {
  readonly requestTick: number;
  readonly sentAt: number;
  readonly trigger: string;
  readonly abort: AbortController | null;
  outcome: Outcome | null;
  readonly done: Promise<void>;
}

type Answer = StrategistAnswer | null;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const defaultNow = () => performance.now();

export class LlmStrategist implements Strategist {
  readonly source = 'llm' as const;
  readonly periodTicks: number;
  readonly timing: TimingMode;
  readonly format: AnswerFormat;
  readonly temperature: number;
  readonly timeoutMs: number;
  readonly events: ReadonlySet<EventTrigger>;
  private readonly counters = new LlmCounters();
  /** Every request's fate this episode, oldest first. */
  readonly records: LlmDecisionRecord[] = [];
  private readonly now: () => number;
  private readonly eventGapTicks: number;
  private readonly maxBackoffTicks: number;
  private inFlight: Pending | null = null;
  private readonly queued = new Set<Trigger>();
  private lastRequestTick = -Infinity;
  private backoffUntil = 0;
  private callFailuresInRow = 0;
  private prevAlive: boolean[] = [];
  private prevLow: boolean[] = [];
  private prevZone: ZoneStatus | null = null;
  private disposed = false;

  constructor(private readonly options: LlmStrategistOptions) {
    const rate = options.rateHz ?? 2;
    this.periodTicks = rate > 0 ? Math.max(1, Math.round(options.tickHz / rate)) : 0;
    this.timing = options.timing ?? { kind: 'realtime' };
    this.format = options.format ?? 'compact';
    this.temperature = options.temperature ?? 0.1;
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.events = new Set(options.events ?? EVENT_TRIGGERS);
    this.now = options.now ?? defaultNow;
    this.eventGapTicks = options.eventGapTicks ?? 5;
    this.maxBackoffTicks = Math.round((options.maxBackoffSeconds ?? 5) * options.tickHz);
  }

  /** The model the decisions come from. */
  get model(): string {
    return this.options.client.model;
  }

  /**
   * This episode's counters. A request still out (or answered but not yet due) counts as
   * abandoned, so requests = answers + failed + abandoned.
   */
  stats(): LlmCountersSnapshot {
    const s = this.counters.snapshot();
    const out = this.inFlight && this.inFlight.outcome?.kind !== 'abandoned' ? 1 : 0;
    return { ...s, abandoned: s.abandoned + out };
  }

  /** Abort a call still out (the match is over). */
  dispose(): void {
    this.disposed = true;
    this.inFlight?.abort?.abort();
  }

  /** Unused: the controller calls onTick, which keeps its own schedule. */
  decide(): null {
    return null;
  }

  onTick(world: World, team: Team, current: readonly SkillId[]): Answer | Promise<Answer> {
    this.watch(world, team);
    if (this.periodTicks > 0 && world.tick % this.periodTicks === 0) this.enqueue('periodic');
    return andThen(this.collect(world, team), (answer) => this.maybeSend(world, team, current, answer));
  }

  // --- scheduling -----------------------------------------------------------------------

  private enqueue(trigger: Trigger): void {
    if (this.inFlight || this.queued.size > 0) this.counters.coalesced++;
    this.queued.add(trigger);
  }

  /** Notice the events that ask for a decision, by comparing the world with the last tick. */
  private watch(world: World, team: Team): void {
    const max = world.config.agent.maxHealth;
    for (const a of world.agents) {
      const low = a.alive && healthLevel(a.health / max) === 'LOW';
      const was = this.prevAlive[a.id];
      if (was !== undefined) {
        if (was && !a.alive) this.event('elimination');
        else if (!was && a.alive) this.event('respawn');
        else if (a.team === team && low && !this.prevLow[a.id]) this.event('low-health');
      }
      this.prevAlive[a.id] = a.alive;
      this.prevLow[a.id] = low;
    }
    if (world.zoneStatus === 'contested' && this.prevZone !== null && this.prevZone !== 'contested') this.event('contested');
    this.prevZone = world.zoneStatus;
  }

  private event(trigger: EventTrigger): void {
    if (this.events.has(trigger)) this.enqueue(trigger);
  }

  private maybeSend(world: World, team: Team, current: readonly SkillId[], answer: Answer): Answer | Promise<Answer> {
    if (this.inFlight || this.queued.size === 0 || this.disposed) return answer;
    const t = world.tick;
    if (t < this.backoffUntil) {
      this.counters.backedOff++;
      this.queued.clear();
      return answer;
    }
    if (!this.queued.has('periodic') && t - this.lastRequestTick < this.eventGapTicks) return answer;
    this.send(world, team, answer ? answer.skills : current);
    if (fixedDelayTicks(this.timing) !== 0) return answer;
    return andThen(this.collect(world, team), (next) => next ?? answer);
  }

  /**
   * The answer of the call out, if it applies at this tick. Waits (returns a promise) only
   * where the timing mode says the match must: lockstep and ticks:N at the apply tick, and
   * realtime where the simulation would otherwise run ahead of the wall clock.
   */
  private collect(world: World, team: Team): Answer | Promise<Answer> {
    const f = this.inFlight;
    if (!f) return null;
    const t = world.tick;
    if (f.outcome) {
      if (t < this.applyTick(f, f.outcome, t)) return null;
      this.inFlight = null;
      return this.finish(f, f.outcome, t, team);
    }
    const fixed = fixedDelayTicks(this.timing);
    if (fixed !== null) {
      return t >= f.requestTick + fixed ? f.done.then(() => this.collect(world, team)) : null;
    }
    if (this.timing.kind === 'realtime') {
      const waitMs = ticksToMs(t - f.requestTick, this.options.tickHz) - (this.now() - f.sentAt);
      if (waitMs > 0) return Promise.race([f.done, sleep(waitMs)]).then(() => this.collect(world, team));
    }
    return null;
  }

  private applyTick(f: Pending, outcome: Outcome, t: number): number {
    const fixed = fixedDelayTicks(this.timing);
    if (fixed !== null) return f.requestTick + fixed;
    if (this.timing.kind === 'live') return t;
    return f.requestTick + latencyTicks(outcome.elapsedMs, this.options.tickHz);
  }

  // --- one request ----------------------------------------------------------------------

  private send(world: World, team: Team, current: readonly SkillId[]): void {
    const t = world.tick;
    const trigger = [...this.queued].join('+');
    for (const q of this.queued) this.counters.triggers[q]++;
    this.queued.clear();
    this.lastRequestTick = t;
    this.counters.requests++;
    const situation = teamSituation(world, team);
    const agentCount = situation.agents.length;
    const request = buildRequest(situation, current, {
      format: this.format,
      temperature: this.temperature,
      config: world.config,
      ...(this.options.maxTokens !== undefined ? { maxTokens: this.options.maxTokens } : {}),
    });
    const cache = this.options.cache && this.options.cache.mode !== 'off' ? this.options.cache : null;
    const key = cache ? cacheKey(this.options.client.model, request) : null;
    const sentAt = this.now();

    const hit = cache && key && cache.mode === 'use' ? cache.store.get(key) : undefined;
    if (hit) {
      this.counters.cacheHits++;
      const parsed = parseAnswer(hit.text, agentCount);
      this.counters.tokens(hit.promptTokens, hit.completionTokens);
      const outcome: Outcome = { kind: 'answer', elapsedMs: hit.latencyMs, latencyMs: hit.latencyMs, cached: true, parsed };
      this.inFlight = { requestTick: t, sentAt, trigger, abort: null, outcome, done: Promise.resolve() };
      return;
    }

    this.counters.calls++;
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, this.timeoutMs);
    const pending: Pending = {
      requestTick: t,
      sentAt,
      trigger,
      abort,
      outcome: null,
      // (A client that throws instead of rejecting fails the call, not the match.)
      done: new Promise<ChatResponse>((resolve) => resolve(this.options.client.complete(request, abort.signal)))
        .then(
          (response): Outcome => {
            const elapsedMs = this.now() - sentAt;
            if (timedOut) return { kind: 'failure', elapsedMs, failure: 'timeout', reason: `no answer within ${this.timeoutMs} ms` };
            this.counters.latency(elapsedMs);
            this.counters.tokens(response.promptTokens, response.completionTokens);
            if (response.formatFallback) this.counters.formatFallbacks++;
            const parsed = parseAnswer(response.text, agentCount);
            if (parsed.ok && key && cache) {
              this.storeAnswer(cache.store, key, response.text, elapsedMs, response.promptTokens, response.completionTokens);
            }
            return { kind: 'answer', elapsedMs, latencyMs: elapsedMs, cached: false, parsed };
          },
          (err: unknown): Outcome => {
            const elapsedMs = this.now() - sentAt;
            const error = err instanceof ChatError ? err : new ChatError('server', err instanceof Error ? err.message : String(err));
            if (timedOut) return { kind: 'failure', elapsedMs, failure: 'timeout', reason: `no answer within ${this.timeoutMs} ms` };
            if (error.kind === 'aborted') return { kind: 'abandoned', elapsedMs };
            return {
              kind: 'failure',
              elapsedMs,
              failure: error.kind,
              reason: error.message,
              ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
            };
          },
        )
        .then((outcome) => {
          clearTimeout(timer);
          pending.outcome = outcome;
          if (outcome.kind === 'abandoned') this.counters.abandoned++;
        }),
    };
    this.inFlight = pending;
  }

  private storeAnswer(store: DecisionCacheStore, key: CacheKey, text: string, latencyMs: number, promptTokens?: number, completionTokens?: number): void {
    try {
      store.set(key, {
        text,
        latencyMs: Math.round(latencyMs * 1000) / 1000,
        ...(promptTokens !== undefined ? { promptTokens } : {}),
        ...(completionTokens !== undefined ? { completionTokens } : {}),
      });
    } catch {
      // A cache that cannot be written costs re-runs, not this match.
    }
  }

  /** Count the outcome, record it, and turn it into the team's answer (null keeps the skills). */
  private finish(f: Pending, outcome: Outcome, t: number, team: Team): Answer {
    if (outcome.kind === 'abandoned') return null;
    const base = { team, requestTick: f.requestTick, applyTick: t, trigger: f.trigger };
    if (outcome.kind === 'failure') {
      this.counters.fail(outcome.failure);
      this.callFailuresInRow++;
      this.backOff(t, outcome.retryAfterMs);
      this.record({ ...base, latencyMs: null, cached: false, ok: false, failure: outcome.failure, reason: outcome.reason });
      return null;
    }
    this.callFailuresInRow = 0;
    const { parsed } = outcome;
    const latencyMs = Math.round(outcome.latencyMs * 10) / 10;
    if (!parsed.ok) {
      this.counters.fail(parsed.kind);
      this.record({ ...base, latencyMs, cached: outcome.cached, ok: false, failure: parsed.kind, reason: parsed.reason });
      return null;
    }
    this.counters.answers++;
    this.counters.applied++;
    this.record({ ...base, latencyMs, cached: outcome.cached, ok: true, skills: parsed.skills, ...(parsed.rationale ? { rationale: parsed.rationale } : {}) });
    const timing: DecisionTiming = { requestTick: f.requestTick, latencyMs, trigger: f.trigger, ...(outcome.cached ? { cached: true } : {}) };
    return { skills: parsed.skills, ...(parsed.rationale ? { rationale: parsed.rationale } : {}), timing };
  }

  /** Repeated call failures wait longer before the next call (doubling, capped); a 429 waits its Retry-After. */
  private backOff(t: number, retryAfterMs?: number): void {
    const base = Math.max(this.periodTicks, Math.round(this.options.tickHz / 2));
    const n = this.callFailuresInRow;
    let ticks = n >= 2 ? Math.min(this.maxBackoffTicks, base * 2 ** (n - 2)) : 0;
    if (retryAfterMs !== undefined) ticks = Math.max(ticks, Math.min(30 * this.options.tickHz, latencyTicks(retryAfterMs, this.options.tickHz)));
    this.backoffUntil = Math.max(this.backoffUntil, t + ticks);
  }

  private record(record: LlmDecisionRecord): void {
    this.records.push(record);
    this.options.onRecord?.(record);
  }
}

// --- the team -------------------------------------------------------------------------------

export interface LlmTeamOptions extends Omit<LlmStrategistOptions, 'tickHz'> {
  /** The skills the strategist chooses among; default the scripted ones. */
  readonly skills?: SkillSet;
}

/** The `llm` team for one match. */
export function createLlmTeam(ctx: TeamContext, options: LlmTeamOptions): HierarchicalController {
  const { skills, ...rest } = options;
  const strategist = new LlmStrategist({ ...rest, tickHz: ctx.config.tickHz });
  return new HierarchicalController('llm', ctx.team, strategist, skills ?? SCRIPTED_SKILLS, ctx.onDecision);
}

/** The LLM strategist behind a controller, if it has one (for counters and the panel). */
export function llmStrategistOf(controller: TeamController): LlmStrategist | null {
  const strategist = (controller as { strategist?: unknown }).strategist;
  return strategist instanceof LlmStrategist ? strategist : null;
}

/** A registry entry for `llm` whose options come from `options(ctx)`. */
export function llmTeamEntry(options: (ctx: TeamContext) => LlmTeamOptions | Promise<LlmTeamOptions>): TeamEntry {
  return {
    id: 'llm',
    description: LLM_TEAM_DESCRIPTION,
    create: async (ctx) => createLlmTeam(ctx, await options(ctx)),
  };
}

export function llmUnavailable(reason: string, help?: string): Error {
  return new Error(`team 'llm' is not available: ${reason}${help ? `; ${help}` : ''}`);
}

/** Settings a Node run may override (the CLI's --llm-timing, --llm-cache). */
export interface NodeLlmOverrides {
  readonly timing?: TimingMode;
  readonly cache?: CacheMode;
  readonly env?: Env;
  readonly skills?: SkillSet;
}

type NodeLlm = typeof import('../llm/node');
/** Loaded on demand (and hidden from the page's bundler): the SDK and the disk cache. */
const NODE_LLM_MODULE = '../llm/node';
let nodeLlm: Promise<NodeLlm> | null = null;
const nodeClients = new Map<string, ChatClient>();

function loadNodeLlm(): Promise<NodeLlm> {
  return (nodeLlm ??= import(/* @vite-ignore */ NODE_LLM_MODULE) as Promise<NodeLlm>);
}

/** Strategist options from validated settings (shared by Node and the page). */
export function optionsFromSettings(settings: Omit<LlmSettings, 'baseUrl' | 'apiKey' | 'model' | 'cache' | 'cacheDir' | 'skills'>): Omit<LlmTeamOptions, 'client'> {
  return {
    format: settings.format,
    temperature: settings.temperature,
    timeoutMs: settings.timeoutMs,
    rateHz: settings.rateHz,
    events: settings.events,
    timing: settings.timing,
    ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
  };
}

/** `llm` in Node: settings from the environment, the openai SDK, the decision cache on disk. */
export function nodeLlmTeamEntry(overrides: NodeLlmOverrides = {}): TeamEntry {
  return llmTeamEntry(async () => {
    const result = readLlmSettings(overrides.env ?? processEnv());
    if (!result.ok) throw llmUnavailable(result.error, result.help);
    const settings = { ...result.settings, ...(overrides.timing ? { timing: overrides.timing } : {}), ...(overrides.cache ? { cache: overrides.cache } : {}) };
    const node = await loadNodeLlm();
    const clientKey = JSON.stringify([settings.baseUrl, settings.apiKey, settings.model, settings.timeoutMs]);
    let client = nodeClients.get(clientKey);
    if (!client) nodeClients.set(clientKey, (client = node.createOpenAiClient(settings)));
    const skills = overrides.skills ?? (settings.skills === 'rl' ? await loadLlmSkills() : undefined);
    return {
      ...optionsFromSettings(settings),
      client,
      ...(settings.cache !== 'off' ? { cache: { store: node.openCacheStore(settings), mode: settings.cache } } : {}),
      ...(skills ? { skills } : {}),
    };
  });
}

/** `llm` in the page: decisions through the product's server (POST /api/llm), live timing. */
export interface ProxyLlmOptions {
  /** Default '/api/llm' and '/api/llm/status' on the page's origin. */
  readonly endpoint?: string;
  readonly statusEndpoint?: string;
  /** Default live (the page's frame loop); headless users of the proxy pick another. */
  readonly timing?: TimingMode;
  readonly skills?: SkillSet;
  readonly onRecord?: (record: LlmDecisionRecord) => void;
}

/** The trained skills, or the team is unavailable with the reason and the way out. */
async function loadLlmSkills(): Promise<SkillSet> {
  try {
    return await loadSkillSet();
  } catch (err) {
    throw llmUnavailable(`LLM_SKILLS=rl needs the trained skills: ${(err as Error).message} (or set LLM_SKILLS=scripted)`);
  }
}

export function proxyLlmTeamEntry(options: ProxyLlmOptions = {}): TeamEntry {
  return llmTeamEntry(async () => {
    const status = await fetchLlmStatus(options.statusEndpoint);
    if (!status.configured || !status.model) throw llmUnavailable(status.error ?? 'the server has no language model configured', status.help);
    return {
      client: new ProxyChatClient({ model: status.model, ...(options.endpoint ? { endpoint: options.endpoint } : {}) }),
      format: status.format ?? 'compact',
      ...(status.temperature !== undefined ? { temperature: status.temperature } : {}),
      ...(status.timeoutMs !== undefined ? { timeoutMs: status.timeoutMs } : {}),
      ...(status.rateHz !== undefined ? { rateHz: status.rateHz } : {}),
      ...(status.events ? { events: status.events.filter((e): e is EventTrigger => (EVENT_TRIGGERS as readonly string[]).includes(e)) } : {}),
      timing: options.timing ?? { kind: 'live' },
      // The server's LLM_SKILLS decides, as in Node: trained skills unless it says scripted.
      skills: options.skills ?? (status.skills === 'scripted' ? SCRIPTED_SKILLS : await loadLlmSkills()),
      ...(options.onRecord ? { onRecord: options.onRecord } : {}),
    };
  });
}

const isNode = () => Boolean((globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node);

/** The registry's `llm`: through the proxy in a page, straight to the model in Node. */
export function defaultLlmTeamEntry(): TeamEntry {
  const node = nodeLlmTeamEntry();
  const page = proxyLlmTeamEntry();
  return { id: 'llm', description: LLM_TEAM_DESCRIPTION, create: (ctx) => (isNode() ? node : page).create(ctx) };
}

/**
 * A strategist that plays back recorded decisions at their ticks: with the same seed and
 * skills it reproduces a match the model played, without the model.
 */
export class RecordedStrategist implements Strategist {
  readonly source: DecisionSource;
  readonly periodTicks = 1;
  private readonly byTick = new Map<number, Decision>();

  constructor(decisions: readonly Decision[], team: Team) {
    const own = decisions.filter((d) => d.team === team);
    this.source = own[0]?.source ?? 'llm';
    for (const d of own) this.byTick.set(d.tick, d);
  }

  decide(): null {
    return null;
  }

  onTick(world: World): StrategistAnswer | null {
    const d = this.byTick.get(world.tick);
    return d ? { skills: d.skills, ...(d.rationale ? { rationale: d.rationale } : {}) } : null;
  }
}
