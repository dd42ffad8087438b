/**
 * Per-episode counters of a language-model strategist: requests, calls, cache hits,
 * failures by kind, latency percentiles and token counts. Plain data out (snapshot()).
 */
import { pct } from '../report/format';
import { percentile } from '../stats';
import { INVALID_ANSWER_KINDS, type InvalidAnswerKind } from './answer';
import type { CallFailureKind } from './chat';
import { EVENT_TRIGGERS, type Trigger } from './timing';

/** Every way a decision can fail: the call (timeout, 429, 5xx, network, other HTTP) or the answer. */
export const FAILURE_KINDS = ['timeout', 'rate-limit', 'server', 'network', 'http', ...INVALID_ANSWER_KINDS] as const;
export type FailureKind = Exclude<CallFailureKind, 'aborted'> | InvalidAnswerKind;

export interface LatencySummary {
  /** Calls with a latency (answered over the network, valid or not). */
  readonly samples: number;
  readonly p50: number | null;
  readonly p95: number | null;
  readonly max: number | null;
}

export interface LlmCountersSnapshot {
  /** Decisions asked for: calls plus cache hits. */
  readonly requests: number;
  /** Calls that went to the model. */
  readonly calls: number;
  readonly cacheHits: number;
  /** Valid answers (from the model or the cache). */
  readonly answers: number;
  /** Answers that reached the team (valid, applied at their tick). */
  readonly applied: number;
  /** Failed decisions (the team kept its skills), total and by kind. */
  readonly failed: number;
  readonly failures: Readonly<Record<FailureKind, number>>;
  /** Requests by what asked for them (several events on one tick count each). */
  readonly triggers: Readonly<Record<Trigger, number>>;
  /** Decisions due while a call was out, folded into the next request. */
  readonly coalesced: number;
  /** Decisions not asked for because the strategist was backing off after failures or a 429. */
  readonly backedOff: number;
  /** Requests sent again without response_format because the server refused it. */
  readonly formatFallbacks: number;
  /** Requests still out, or answered but not yet due, when the episode ended (not failures). */
  readonly abandoned: number;
  readonly latencyMs: LatencySummary;
  readonly tokens: { readonly prompt: number; readonly completion: number };
  /** How the applied answers compare with the tree's rules on the situations they answered. */
  readonly rules: RulesAgreement;
}

/**
 * The strategist exam taken in play: per living agent of every applied answer, whether the
 * model chose what the tree's rules choose in that situation (teams/behaviorTree.ts
 * rulesChoice), overall and where the current skill differs from the rules' choice (there
 * keeping the skill scores nothing). The exam's situations come from other teams' matches;
 * these are the ones the model's own choices led to, which an imitator meets less well.
 */
export interface RulesAgreement {
  readonly choices: number;
  readonly agreed: number;
  readonly heldOut: { readonly choices: number; readonly agreed: number };
}

/** What the rules chose for a request's situation, beside the skills then current (eliminated agents: null). */
export interface RulesLabel {
  readonly rules: readonly (string | null)[];
  readonly current: readonly string[];
}

/** A team's counters with the model that answered and who served it (match summaries, tournament records). */
export interface LlmTeamReport extends LlmCountersSnapshot {
  readonly model: string;
  /** A server's address or the local engine. */
  readonly provider: string;
}

const zeros = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

export class LlmCounters {
  requests = 0;
  calls = 0;
  cacheHits = 0;
  answers = 0;
  applied = 0;
  coalesced = 0;
  backedOff = 0;
  formatFallbacks = 0;
  abandoned = 0;
  promptTokens = 0;
  completionTokens = 0;
  readonly failures: Record<FailureKind, number> = zeros(FAILURE_KINDS);
  readonly triggers: Record<Trigger, number> = zeros(['periodic', ...EVENT_TRIGGERS] as const);
  private readonly latencies: number[] = [];
  private readonly rules = { choices: 0, agreed: 0, heldOut: { choices: 0, agreed: 0 } };

  /** Count an applied answer against the rules' choice for the situation it answered. */
  agreement(chosen: readonly string[], label: RulesLabel): void {
    label.rules.forEach((rule, slot) => {
      if (rule === null) return;
      const agreed = chosen[slot] === rule ? 1 : 0;
      this.rules.choices++;
      this.rules.agreed += agreed;
      if (label.current[slot] !== rule) {
        this.rules.heldOut.choices++;
        this.rules.heldOut.agreed += agreed;
      }
    });
  }

  fail(kind: FailureKind): void {
    this.failures[kind]++;
  }

  latency(ms: number): void {
    this.latencies.push(ms);
  }

  tokens(prompt: number | undefined, completion: number | undefined): void {
    this.promptTokens += prompt ?? 0;
    this.completionTokens += completion ?? 0;
  }

  snapshot(): LlmCountersSnapshot {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const round = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);
    // Nearest rank: the figure is a latency some call really had; none without calls.
    const at = (p: number) => (sorted.length ? percentile(sorted, p, 'nearest-rank') : null);
    return {
      requests: this.requests,
      calls: this.calls,
      cacheHits: this.cacheHits,
      answers: this.answers,
      applied: this.applied,
      failed: Object.values(this.failures).reduce((a, b) => a + b, 0),
      failures: { ...this.failures },
      triggers: { ...this.triggers },
      coalesced: this.coalesced,
      backedOff: this.backedOff,
      formatFallbacks: this.formatFallbacks,
      abandoned: this.abandoned,
      latencyMs: {
        samples: sorted.length,
        p50: round(at(50)),
        p95: round(at(95)),
        max: round(sorted.length ? sorted[sorted.length - 1]! : null),
      },
      tokens: { prompt: this.promptTokens, completion: this.completionTokens },
      rules: { ...this.rules, heldOut: { ...this.rules.heldOut } },
    };
  }
}

/** A few lines for the terminal (the model and its provider first, where known). */
export function formatCounters(label: string, s: LlmCountersSnapshot | LlmTeamReport): string {
  const failures = FAILURE_KINDS.filter((k) => s.failures[k] > 0).map((k) => `${k} ${s.failures[k]}`);
  const triggers = (Object.keys(s.triggers) as Trigger[]).filter((k) => s.triggers[k] > 0).map((k) => `${k} ${s.triggers[k]}`);
  const ms = (v: number | null) => (v === null ? '-' : `${Math.round(v)} ms`);
  const who = 'model' in s ? `${label}: ${s.model} via ${s.provider}\n  ` : `${label}: `;
  const decided = s.answers + s.failed;
  const valid = decided > 0 ? ` (${pct(s.answers / decided)} valid)` : '';
  return [
    `${who}${s.requests} requests (${triggers.join(', ') || 'none'}), ${s.calls} calls, ${s.cacheHits} cache hits, ${s.answers} valid answers${valid}, ${s.applied} applied`,
    `  failures: ${s.failed}${failures.length ? ` (${failures.join(', ')})` : ''}; coalesced ${s.coalesced}, backed off ${s.backedOff}, abandoned ${s.abandoned}${s.formatFallbacks ? `, format fallbacks ${s.formatFallbacks}` : ''}`,
    `  latency p50 ${ms(s.latencyMs.p50)}, p95 ${ms(s.latencyMs.p95)} over ${s.latencyMs.samples} calls; tokens: prompt ${s.tokens.prompt}, completion ${s.tokens.completion}`,
    ...(s.rules.choices > 0 ? [`  ${rulesAgreementText(s.rules)}`] : []),
  ].join('\n');
}

/** "agrees with the tree's rules on 79.2% of 10,921 choices in play; 60.0% of 3,238 where the current skill differs" */
export function rulesAgreementText(r: RulesAgreement): string {
  const share = (agreed: number, choices: number) => `${pct(agreed / choices)} of ${choices.toLocaleString('en-US')}`;
  const held = r.heldOut.choices > 0 ? `; ${share(r.heldOut.agreed, r.heldOut.choices)} where the current skill differs` : '';
  return `agrees with the tree's rules on ${share(r.agreed, r.choices)} choices in play${held}`;
}
