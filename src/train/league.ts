/**
 * A league that a training phase may name (tried for flat, docs/training.md; no shipped
 * model trains against one now): frozen snapshots of the learner taken
 * as it trains, with scripted teams beside them, sampled by how often each beats the
 * learner (prioritised fictitious self-play, PFSP: AlphaStar, Vinyals et al. 2019; Unity
 * ML-Agents' self-play keeps past snapshots the same way).
 *
 * Why a league rather than plain self-play: a policy that only ever meets its current self
 * can chase its own tail (learn to beat this week's habit and forget last week's); past
 * selves it still loses to keep coming back until it beats them, and the scripted teams keep
 * it honest against play that is not its own. PFSP weighs a member by (1 - x)^exponent,
 * x being the learner's recent score against it (win 1, draw 1/2, loss 0), so members it
 * beats fade and members that beat it are met often; `latestShare` of the episodes meet the
 * newest snapshot (AlphaStar's main agents play 35% self-play).
 *
 * Everything here is the same in every training worker: snapshots are taken at the same
 * step counts from the same weights, results are summed over the workers before they are
 * folded in, and each episode's opponent is drawn from a number derived from its seed, so a
 * run stays deterministic for its seed and worker count, and resumes exactly.
 */
import { type Action, OBS_SIZE, Rng, deriveSeed } from '../sim';
import type { Policy } from '../skills';
import { outputsToActions } from '../skills/onnxPolicy';
import { Mlp } from './mlp';
import { RunningNormalizer } from './normalizer';
import type { LeagueSettings, OpponentName } from './config';
import type { PolicyState } from './ppo';

/** A frozen snapshot: the policy network's weights and the observation statistics it was trained on. */
export interface LeagueSnapshot {
  readonly steps: number;
  readonly sizes: readonly number[];
  readonly params: Float32Array;
  readonly normalizer: ReturnType<RunningNormalizer['toJSON']>;
}

/** What a checkpoint keeps of the league. */
export interface LeagueState {
  readonly snapshots: readonly LeagueSnapshot[];
  /** Per member (scripted first, then snapshots): the learner's decayed score and game count. */
  readonly score: Float64Array;
  readonly games: Float64Array;
}

/** A member of the league: a scripted team by name, or a snapshot by its index among the snapshots. */
export type LeagueMember = { readonly kind: 'scripted'; readonly name: OpponentName } | { readonly kind: 'snapshot'; readonly index: number };

/** Pseudo-games at an even score every member starts with (and decays back to), so a new member is met soon. */
const PRIOR_GAMES = 1;

/**
 * PFSP's weight for each member: (1 - x)^exponent with x the learner's score share against it,
 * (score + PRIOR_GAMES / 2) / (games + PRIOR_GAMES).
 */
export function pfspWeights(score: ArrayLike<number>, games: ArrayLike<number>, exponent: number): Float64Array {
  const weights = new Float64Array(score.length);
  for (let i = 0; i < score.length; i++) {
    const x = (score[i]! + PRIOR_GAMES / 2) / (games[i]! + PRIOR_GAMES);
    weights[i] = (1 - x) ** exponent;
  }
  return weights;
}

/** The index whose cumulative weight first passes u x the total (u in [0, 1)); the last one if all weigh 0. */
export function sampleIndex(weights: ArrayLike<number>, u: number): number {
  let total = 0;
  for (let i = 0; i < weights.length; i++) total += weights[i]!;
  let target = u * total;
  for (let i = 0; i < weights.length; i++) {
    target -= weights[i]!;
    if (target < 0) return i;
  }
  return weights.length - 1;
}

/** The learner's score in an ended episode: 1 won, 0 lost, 1/2 drawn; an episode cut at the horizon goes to whoever has more zone progress. */
export function episodeScore(outcome: 'blue' | 'red' | 'draw' | null, progress: readonly [number, number]): number {
  if (outcome === 'blue') return 1;
  if (outcome === 'red') return 0;
  if (outcome === 'draw') return 0.5;
  return progress[0] > progress[1] ? 1 : progress[0] < progress[1] ? 0 : 0.5;
}

/** A snapshot playing as the game plays a trained policy: the means, and dash/fire on a positive logit. */
function snapshotPolicy(snapshot: LeagueSnapshot): Policy {
  const network = new Mlp(snapshot.sizes, () => 0);
  network.setParams(snapshot.params);
  const normalizer = RunningNormalizer.fromJSON(snapshot.normalizer);
  let input = new Float32Array(0);
  return {
    name: `flat@${snapshot.steps}`,
    kind: 'snapshot',
    act(obs: Float32Array, count: number, out: readonly Action[]) {
      if (input.length < count * OBS_SIZE) input = new Float32Array(count * OBS_SIZE);
      normalizer.normalize(obs, count, input);
      outputsToActions(network.forward(input, count), count, out);
    },
  };
}

export class League {
  private readonly snapshots: LeagueSnapshot[] = [];
  private readonly policies: Policy[] = [];
  private score: Float64Array;
  private games: Float64Array;
  /** Results of episodes ended since the last fold: per member, [score, games]. */
  private pending: Float64Array;

  constructor(
    readonly settings: LeagueSettings,
    restored?: LeagueState,
  ) {
    if (!(settings.latestShare >= 0 && settings.latestShare <= 1)) throw new Error(`league latestShare must be in [0, 1], got ${settings.latestShare}`);
    if (!(settings.snapshotEvery > 0)) throw new Error(`league snapshotEvery must be positive, got ${settings.snapshotEvery}`);
    const members = settings.scripted.length + (restored?.snapshots.length ?? 0);
    this.score = new Float64Array(members);
    this.games = new Float64Array(members);
    this.pending = new Float64Array(2 * members);
    if (restored) {
      for (const s of restored.snapshots) this.addSnapshot(s);
      this.score.set(restored.score);
      this.games.set(restored.games);
    }
  }

  /** Scripted teams, then snapshots oldest first. */
  get size(): number {
    return this.settings.scripted.length + this.snapshots.length;
  }

  member(i: number): LeagueMember {
    const scripted = this.settings.scripted.length;
    if (i < scripted) return { kind: 'scripted', name: this.settings.scripted[i]! };
    if (i - scripted >= this.snapshots.length) throw new Error(`the league has ${this.size} members, not ${i + 1}`);
    return { kind: 'snapshot', index: i - scripted };
  }

  /** The frozen policy of snapshot `index`. */
  snapshotPolicy(index: number): Policy {
    return this.policies[index]!;
  }

  /** Take a snapshot at every multiple of snapshotEvery steps (the first at the start); true when one was taken. */
  maybeSnapshot(steps: number, state: PolicyState): boolean {
    const due = Math.floor(steps / this.settings.snapshotEvery);
    if (this.snapshots.length > 0 && due < this.snapshots.length) return false;
    this.addSnapshot({ steps, sizes: [...state.policy.sizes], params: state.policy.params.slice(), normalizer: state.normalizer.toJSON() });
    this.score = grow(this.score, this.size);
    this.games = grow(this.games, this.size);
    this.pending = grow(this.pending, 2 * this.size);
    return true;
  }

  private addSnapshot(snapshot: LeagueSnapshot): void {
    this.snapshots.push(snapshot);
    this.policies.push(snapshotPolicy(snapshot));
  }

  /** The member an episode with this seed meets: the newest snapshot for latestShare of seeds, else a PFSP draw. */
  pick(seed: number): number {
    if (this.snapshots.length === 0) throw new Error('the league has no snapshot yet: take one before the first episode');
    const rng = new Rng(deriveSeed(seed, 'league'));
    if (rng.next() < this.settings.latestShare) return this.size - 1;
    return sampleIndex(pfspWeights(this.score, this.games, this.settings.exponent), rng.next());
  }

  /** An episode against member `i` ended with the learner's `score` (episodeScore). */
  record(i: number, score: number): void {
    this.pending[2 * i]! += score;
    this.pending[2 * i + 1]! += 1;
  }

  /** This worker's results since the last fold, to be summed over the workers, then passed to fold. */
  get results(): Float64Array {
    return this.pending;
  }

  /** Decay the past, add every worker's summed results, and start a new tally. */
  fold(summed: Float64Array): void {
    for (let i = 0; i < this.size; i++) {
      this.score[i] = this.score[i]! * this.settings.decay + summed[2 * i]!;
      this.games[i] = this.games[i]! * this.settings.decay + summed[2 * i + 1]!;
    }
    this.pending.fill(0);
  }

  /** Each member's share of the PFSP draw and the learner's score share against it. */
  standings(): LeagueStanding[] {
    return leagueStandings(this.settings, this.state());
  }

  /**
   * The state, with only the snapshots from `since` on (a worker thread posts each update's
   * news; extendLeagueState rebuilds the whole from them).
   */
  stateSince(since: number): LeagueState {
    return { snapshots: this.snapshots.slice(since).map((s) => ({ ...s, params: s.params.slice() })), score: this.score.slice(), games: this.games.slice() };
  }

  state(): LeagueState {
    return { snapshots: this.snapshots.map((s) => ({ ...s, params: s.params.slice() })), score: this.score.slice(), games: this.games.slice() };
  }
}

function grow(a: Float64Array, length: number): Float64Array {
  if (a.length >= length) return a;
  const b = new Float64Array(length);
  b.set(a);
  return b;
}

/** A league's state from an earlier one and the news since (LeagueState.stateSince). */
export function extendLeagueState(earlier: LeagueState | undefined, news: LeagueState): LeagueState {
  return { snapshots: [...(earlier?.snapshots ?? []), ...news.snapshots], score: news.score, games: news.games };
}

export interface LeagueStanding {
  readonly member: string;
  /** Its share of the PFSP draw (the newest snapshot also gets latestShare on top). */
  readonly weight: number;
  /** The learner's decayed score share against it; null before any game. */
  readonly score: number | null;
}

/** A league's members with their PFSP share and the learner's score against each (for the training log). */
export function leagueStandings(settings: LeagueSettings, state: LeagueState): LeagueStanding[] {
  const weights = pfspWeights(state.score, state.games, settings.exponent);
  const total = weights.reduce((a, b) => a + b, 0);
  const names = [...settings.scripted, ...state.snapshots.map((s) => `flat@${s.steps}`)];
  return names.map((member, i) => ({ member, weight: total > 0 ? weights[i]! / total : 0, score: state.games[i]! > 0 ? state.score[i]! / state.games[i]! : null }));
}
