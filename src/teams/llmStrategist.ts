/**
 * The language-model strategist: for one team it writes the prompt from the discretised
 * situation, asks a model through a ChatClient (in Node the embedded local engine, or the
 * OpenAI SDK for a configured server; in the page the product's proxy; a test double), and
 * turns the answer into one skill per agent. It asks at a fixed rate (2 Hz by default) and
 * when events happen (an elimination, a respawn, the zone becoming contested, an own
 * agent's health dropping LOW, any fact of an own agent's line changing). At most one call
 * is out at a time; what falls due meanwhile is folded into the next request. Each applied
 * answer is counted against the tree's rules on the situation it answered (the exam in play).
 *
 * When an answer applies follows the timing mode (see src/llm/timing.ts): in live play at
 * the tick it arrives; headless at the tick real-time play would have reached
 * (`realtime`), after a fixed delay (`ticks:N`) or at once, the match waiting
 * (`lockstep`). Every applied decision reaches the match with its tick and timing, so
 * replays hold it and reproduce without the model. An answer is written to the decision
 * cache when it applies, so a cached rerun meets exactly the answers the first run used.
 *
 * Whatever fails (a timeout, a 429, a 5xx, the network, an empty, garbled or invalid
 * answer) the team keeps its skills and the episode goes on; failures are counted by kind
 * and repeated call failures back off (a 429's Retry-After is honoured). One exception:
 * where the match waits for answers, a model that times out `maxTimeouts` calls in a row
 * is taken for gone, and the match stops (LlmSilent) or, where asked, plays on without it.
 * Wall-clock time comes from the injected Clock.
 */
import {
  type AnswerFormat,
  type CacheKey,
  type ChatClient,
  ChatError,
  type ChatResponse,
  type Clock,
  type DecisionCache,
  type EventTrigger,
  type FailureKind,
  LlmCounters,
  type LlmCountersSnapshot,
  type LlmTeamReport,
  LlmSilent,
  type ParsedAnswer,
  type RulesLabel,
  type StrategistSettings,
  SYSTEM_CLOCK,
  type TimingMode,
  type Trigger,
  buildRequest,
  cacheKey,
  fixedDelayTicks,
  latencyTicks,
  parseAnswer,
  ticksToMs,
} from '../llm';
import { type Team, type World, type ZoneStatus, healthLevel, teamSituation } from '../sim';
import type { SkillId } from '../skills';
import { andThen } from './controller';
import { rulesJudge } from './behaviorTree';
import type { DecisionTiming, Strategist, StrategistAnswer } from './hierarchical';

/**
 * What a strategist asks with. Its settings (format, temperature, timeout, rate, events,
 * timing) are all given: their defaults are applied once, where settings enter
 * (strategistSettingsOf: the environment, the page's status, a test's options).
 */
export interface LlmStrategistOptions extends Pick<StrategistSettings, 'format' | 'temperature' | 'timeoutMs' | 'rateHz' | 'events' | 'timing' | 'maxTimeouts' | 'onSilence'> {
  readonly client: ChatClient;
  /** Who serves the model, for summaries (the connection's provider); default 'unknown'. */
  readonly provider?: string;
  /** Game ticks per second (the config's tickHz). */
  readonly tickHz: number;
  /** Answer bound; default per format; 0 sends none. */
  readonly maxTokens?: number;
  readonly cache?: DecisionCache | null;
  /** Least ticks between a request and one that only events ask for; default 5 (0.1 s). */
  readonly eventGapTicks?: number;
  /** Longest back-off after repeated failures, in seconds of play; default 5. */
  readonly maxBackoffSeconds?: number;
  /** The wall clock (tests inject a virtual one); default the system's. */
  readonly clock?: Clock;
  /** A persona's play style, carried by the system prompt. */
  readonly style?: string;
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

/** What became of one call (or cache lookup), before it applies. */
type CallOutcome =
  | { readonly kind: 'answer'; readonly elapsedMs: number; readonly latencyMs: number; readonly cached: boolean; readonly parsed: ParsedAnswer; readonly response?: ChatResponse }
  | { readonly kind: 'failure'; readonly elapsedMs: number; readonly failure: FailureKind; readonly reason: string; readonly retryAfterMs?: number }
  | { readonly kind: 'abandoned'; readonly elapsedMs: number };

interface Pending {
  readonly requestTick: number;
  readonly sentAt: number;
  readonly trigger: string;
  readonly abort: AbortController | null;
  /** Where the answer goes in the decision cache once it applies; null when it is not stored. */
  readonly cacheKey: CacheKey | null;
  /** The rules' choice for the situation asked, to count the answer against (LlmCounters.agreement). */
  readonly label: RulesLabel;
  outcome: CallOutcome | null;
  readonly done: Promise<void>;
}

type Answer = StrategistAnswer | null;

/** What the strategist panel shows of a language model's calls. */
export interface LlmStatus {
  /** The tick a call still out (or answered but not yet due) was asked at; null when none is. */
  readonly askedAtTick: number | null;
  /** The latest call's fate, or null before the first. */
  readonly last: LlmDecisionRecord | null;
  readonly requests: number;
  readonly answers: number;
  readonly timeouts: number;
  /** Failed in other ways: errors, refusals, invalid answers. */
  readonly otherFailures: number;
}

const LOCKSTEP: TimingMode = { kind: 'lockstep' };

export class LlmStrategist implements Strategist {
  readonly source = 'llm' as const;
  /** Ticks between fixed-rate requests; 0 asks on events only. (The controller asks every tick.) */
  readonly ratePeriodTicks: number;
  readonly format: AnswerFormat;
  readonly temperature: number;
  readonly timeoutMs: number;
  readonly events: ReadonlySet<EventTrigger>;
  private readonly counters = new LlmCounters();
  /** Every request's fate this episode, oldest first. */
  readonly records: LlmDecisionRecord[] = [];
  private readonly clock: Clock;
  private readonly eventGapTicks: number;
  private readonly maxBackoffTicks: number;
  private inFlight: Pending | null = null;
  private readonly queued = new Set<Trigger>();
  private lastRequestTick = -Infinity;
  private backoffUntil = 0;
  private callFailuresInRow = 0;
  private timeoutsInRow = 0;
  /** The model stopped answering and the team plays on without it (onSilence: continue). */
  private silenced = false;
  private readonly maxTimeouts: number;
  private prevAlive: boolean[] = [];
  private prevLow: boolean[] = [];
  private prevZone: ZoneStatus | null = null;
  /** The tree's rules, to count each answer against (the exam in play). */
  private readonly rules = rulesJudge();
  /** The own agents' facts at the last tick (situationKey), for the `situation` trigger. */
  private prevFacts: string | null = null;
  private closed = false;
  /** The page asked to wait for each answer (setWaiting): lockstep over the timing it was built with. */
  private waiting = false;

  constructor(private readonly options: LlmStrategistOptions) {
    const rate = options.rateHz;
    this.ratePeriodTicks = rate > 0 ? Math.max(1, Math.round(options.tickHz / rate)) : 0;
    this.format = options.format;
    this.temperature = options.temperature;
    this.timeoutMs = options.timeoutMs;
    this.events = new Set(options.events);
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.eventGapTicks = options.eventGapTicks ?? 5;
    this.maxBackoffTicks = Math.round((options.maxBackoffSeconds ?? 5) * options.tickHz);
    this.maxTimeouts = options.maxTimeouts;
  }

  /** When an answer applies: the timing it was built with, or lockstep while the page waits for the model. */
  get timing(): TimingMode {
    return this.waiting ? LOCKSTEP : this.options.timing;
  }

  /**
   * Wait for each answer from now on (lockstep: the match holds while a call is out, and the
   * answer applies at its request tick), or go back to the timing it was built with. The
   * page's "Wait for the model", where the game runs faster than the model answers. A call
   * out when waiting starts is waited for at the next tick; each applied answer still reaches
   * the match with its request and apply ticks, so the replay holds it as usual. The call
   * timeout stays the strategist's own: a call that outlasts it fails and the game goes on;
   * a silent model never stops the match for it (giveUpIfSilent reads the timing the
   * strategist was built with), and the count of timeouts in a row starts again.
   */
  setWaiting(wait: boolean): void {
    this.waiting = wait;
    this.timeoutsInRow = 0;
  }

  /** The model the decisions come from. */
  get model(): string {
    return this.options.client.model;
  }

  /** Who serves it: a server's address or the local engine. */
  get provider(): string {
    return this.options.provider ?? 'unknown';
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

  /** This episode's counters with the model and its provider. */
  report(): LlmTeamReport {
    return { model: this.model, provider: this.provider, ...this.stats() };
  }

  /** Whether a call is out, how the last one went, and the counts so far (the page's panel). */
  status(): LlmStatus {
    const s = this.counters.snapshot();
    const out = this.inFlight && this.inFlight.outcome?.kind !== 'abandoned' ? this.inFlight.requestTick : null;
    return {
      askedAtTick: out,
      last: this.records.at(-1) ?? null,
      requests: s.requests,
      answers: s.answers,
      timeouts: s.failures.timeout,
      otherFailures: s.failed - s.failures.timeout,
    };
  }

  /** Abort a call still out and ask no more (the match is over). */
  close(): void {
    this.closed = true;
    this.inFlight?.abort?.abort();
  }

  /** Called every tick: notice events, apply an answer that is due, send what is queued. */
  decide(world: World, team: Team, current: readonly SkillId[]): Answer | Promise<Answer> {
    this.watch(world, team);
    if (this.ratePeriodTicks > 0 && world.tick % this.ratePeriodTicks === 0) this.enqueue('periodic');
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
    if (this.events.has('situation')) {
      const facts = situationKey(world, team);
      if (this.prevFacts !== null && facts !== this.prevFacts) this.event('situation');
      this.prevFacts = facts;
    }
  }

  private event(trigger: EventTrigger): void {
    if (this.events.has(trigger)) this.enqueue(trigger);
  }

  private maybeSend(world: World, team: Team, current: readonly SkillId[], answer: Answer): Answer | Promise<Answer> {
    if (this.inFlight || this.queued.size === 0 || this.closed || this.silenced) return answer;
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
      const waitMs = ticksToMs(t - f.requestTick, this.options.tickHz) - (this.clock.now() - f.sentAt);
      if (waitMs > 0) return Promise.race([f.done, this.clock.sleep(waitMs)]).then(() => this.collect(world, team));
    }
    return null;
  }

  private applyTick(f: Pending, outcome: CallOutcome, t: number): number {
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
    const rules = this.rules(situation, current);
    const label: RulesLabel = { rules: situation.agents.map((a, slot) => (a.alive ? rules[slot]! : null)), current: [...current] };
    const request = buildRequest(situation, current, {
      format: this.format,
      temperature: this.temperature,
      config: world.config,
      ...(this.options.maxTokens !== undefined ? { maxTokens: this.options.maxTokens } : {}),
      ...(this.options.style ? { style: this.options.style } : {}),
    });
    const cache = this.options.cache && this.options.cache.mode !== 'off' ? this.options.cache : null;
    const key = cache ? cacheKey(this.options.client.model, request) : null;
    const sentAt = this.clock.now();

    const hit = cache && key && cache.mode === 'use' ? cache.store.get(key) : undefined;
    if (hit) {
      this.counters.cacheHits++;
      const parsed = parseAnswer(hit.text, agentCount);
      this.counters.tokens(hit.promptTokens, hit.completionTokens);
      const outcome: CallOutcome = { kind: 'answer', elapsedMs: hit.latencyMs, latencyMs: hit.latencyMs, cached: true, parsed };
      this.inFlight = { requestTick: t, sentAt, trigger, abort: null, cacheKey: null, label, outcome, done: Promise.resolve() };
      return;
    }

    this.counters.calls++;
    const abort = new AbortController();
    let timedOut = false;
    const cancelTimer = this.clock.timer(this.timeoutMs, () => {
      timedOut = true;
      abort.abort();
    });
    const pending: Pending = {
      requestTick: t,
      sentAt,
      trigger,
      abort,
      cacheKey: key,
      label,
      outcome: null,
      // (A client that throws instead of rejecting fails the call, not the match.)
      done: new Promise<ChatResponse>((resolve) => resolve(this.options.client.complete(request, abort.signal)))
        .then(
          (response): CallOutcome => {
            const elapsedMs = this.clock.now() - sentAt;
            if (timedOut) return { kind: 'failure', elapsedMs, failure: 'timeout', reason: `no answer within ${this.timeoutMs} ms` };
            this.counters.latency(elapsedMs);
            this.counters.tokens(response.promptTokens, response.completionTokens);
            if (response.formatFallback) this.counters.formatFallbacks++;
            const parsed = parseAnswer(response.text, agentCount);
            return { kind: 'answer', elapsedMs, latencyMs: elapsedMs, cached: false, parsed, response };
          },
          (err: unknown): CallOutcome => {
            const elapsedMs = this.clock.now() - sentAt;
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
          cancelTimer();
          pending.outcome = outcome;
          if (outcome.kind === 'abandoned') this.counters.abandoned++;
        }),
    };
    this.inFlight = pending;
  }

  /**
   * Keep an answer that applied. Only those: an answer that arrived after the match's last
   * tick never shaped the match, and a cached rerun must meet exactly the answers the
   * first run used (whether a late answer arrived in time is a race with the wall clock).
   */
  private storeAnswer(key: CacheKey, response: ChatResponse, latencyMs: number): void {
    const store = this.options.cache?.store;
    if (!store) return;
    try {
      store.set(key, {
        text: response.text,
        latencyMs: Math.round(latencyMs * 1000) / 1000,
        ...(response.promptTokens !== undefined ? { promptTokens: response.promptTokens } : {}),
        ...(response.completionTokens !== undefined ? { completionTokens: response.completionTokens } : {}),
      });
    } catch {
      // A cache that cannot be written costs re-runs, not this match.
    }
  }

  /** Count the outcome, record it, and turn it into the team's answer (null keeps the skills). */
  private finish(f: Pending, outcome: CallOutcome, t: number, team: Team): Answer {
    if (outcome.kind === 'abandoned') return null;
    const base = { team, requestTick: f.requestTick, applyTick: t, trigger: f.trigger };
    if (outcome.kind === 'failure') {
      this.counters.fail(outcome.failure);
      this.callFailuresInRow++;
      this.timeoutsInRow = outcome.failure === 'timeout' ? this.timeoutsInRow + 1 : 0;
      this.backOff(t, outcome.retryAfterMs);
      this.record({ ...base, latencyMs: null, cached: false, ok: false, failure: outcome.failure, reason: outcome.reason });
      this.giveUpIfSilent();
      return null;
    }
    this.callFailuresInRow = 0;
    this.timeoutsInRow = 0;
    const { parsed } = outcome;
    const latencyMs = Math.round(outcome.latencyMs * 10) / 10;
    if (!parsed.ok) {
      this.counters.fail(parsed.kind);
      this.record({ ...base, latencyMs, cached: outcome.cached, ok: false, failure: parsed.kind, reason: parsed.reason });
      return null;
    }
    this.counters.answers++;
    this.counters.applied++;
    this.counters.agreement(parsed.skills, f.label);
    if (f.cacheKey && outcome.response) this.storeAnswer(f.cacheKey, outcome.response, outcome.latencyMs);
    this.record({ ...base, latencyMs, cached: outcome.cached, ok: true, skills: parsed.skills, ...(parsed.rationale ? { rationale: parsed.rationale } : {}) });
    const timing: DecisionTiming = { requestTick: f.requestTick, latencyMs, trigger: f.trigger, ...(outcome.cached ? { cached: true } : {}) };
    return { skills: parsed.skills, ...(parsed.rationale ? { rationale: parsed.rationale } : {}), timing };
  }

  /**
   * Where the game waits for answers, each timeout holds the match for the whole timeout:
   * after maxTimeouts in a row the model is taken for gone. Stop the run (LlmSilent, naming
   * the server), or play on without the model where the settings ask for that. Where the game
   * does not wait (realtime, live) a silent model costs no time, and the team only backs off.
   */
  private giveUpIfSilent(): void {
    // The timing it was built with: a page waiting for the model at its person's asking is not a run that waits.
    if (fixedDelayTicks(this.options.timing) === null || this.maxTimeouts === 0 || this.timeoutsInRow < this.maxTimeouts) return;
    if (this.options.onSilence !== 'continue') throw new LlmSilent(this.model, this.provider, this.timeoutsInRow, this.timeoutMs);
    this.silenced = true;
  }

  /** Repeated call failures wait longer before the next call (doubling, capped); a 429 waits its Retry-After. */
  private backOff(t: number, retryAfterMs?: number): void {
    const base = Math.max(this.ratePeriodTicks, Math.round(this.options.tickHz / 2));
    const n = this.callFailuresInRow;
    let ticks = n >= 2 ? Math.min(this.maxBackoffTicks, base * 2 ** (n - 2)) : 0;
    if (retryAfterMs !== undefined) ticks = Math.max(ticks, Math.min(30 * this.options.tickHz, latencyTicks(retryAfterMs, this.options.tickHz)));
    this.backoffUntil = Math.max(this.backoffUntil, t + ticks);
  }

  private record(record: LlmDecisionRecord): void {
    this.records.push(record);
  }
}

/** The own agents' discretised facts (what their prompt lines and the tree's rules read) as one comparable string. */
export function situationKey(world: World, team: Team): string {
  return JSON.stringify(teamSituation(world, team).agents);
}
