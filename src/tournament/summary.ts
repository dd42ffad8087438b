/**
 * What a tournament's records say: per matchup wins, losses and draws with 95% Wilson
 * intervals and p-values; per team K/D, shots, accuracy, pickups, skill use and
 * skill-transition entropy; Bradley-Terry ratings with bootstrap intervals.
 */
import { SKILL_IDS, type SkillId } from '../skills';
import {
  MIN_EXPECTED,
  type TeamRating,
  bradleyTerryRatings,
  oneProportionZTest,
  shannonEntropy,
  twoProportionZTest,
  wilsonInterval,
} from '../stats';
import { matchups } from './plan';
import type { EpisodeRecord } from './records';
import { type BehaviourComparison, compareBehaviour } from './behaviour';

export interface Interval {
  readonly estimate: number;
  readonly lower: number;
  readonly upper: number;
}

export interface MatchupSummary {
  readonly a: string;
  readonly b: string;
  readonly episodes: number;
  readonly aWins: number;
  readonly bWins: number;
  readonly draws: number;
  readonly aRate: Interval;
  readonly bRate: Interval;
  readonly drawRate: Interval;
  /** Two-proportion z-test of a's win rate against b's (null when undefined, or held back: see `heldBack`). */
  readonly pTwoProportion: number | null;
  /** The study's test: a's share of decisive games against 50% (null when held back: see `heldBack`). */
  readonly pDecisive: number | null;
  /** The tests not given because their normal approximation does not hold yet, and why (null when both are given). */
  readonly heldBack: string | null;
  readonly meanDurationSeconds: number;
}

export interface TeamSummary {
  readonly team: string;
  readonly agentEpisodes: number;
  readonly kills: number;
  readonly deaths: number;
  /** Kills per death (Infinity without deaths). */
  readonly kd: number;
  readonly shotsPerEpisode: number;
  readonly accuracy: number | null;
  readonly pickupsPerEpisode: number;
  /** Share of skill time per skill (empty for teams without skills). */
  readonly skillShare: Partial<Record<SkillId, number>>;
  /** Entropy in bits of the team's skill-transition distribution (null without transitions). */
  readonly transitionEntropyBits: number | null;
}

export interface TournamentSummary {
  readonly episodes: number;
  readonly matchups: readonly MatchupSummary[];
  readonly teams: readonly TeamSummary[];
  /** null when the results cannot support ratings (teams split into groups that never met). */
  readonly ratings: readonly TeamRating[] | null;
  readonly ratingsNote: string | null;
  /** Why plain maximum likelihood gives no finite ratings (a team that never lost), or null; the prior's ratings are shown then. */
  readonly ratingsSeparation: string | null;
  /** How differently the entrants play (skill use, places, switch rate, contact, coverage). */
  readonly behaviour: BehaviourComparison;
}

/**
 * The ratings' weak prior: as if every pair had also drawn one game. Without it a team that
 * never lost has no finite rating, and in a 3-team, 50-episode round robin
 * (bt-scripted, heuristic, random) every bootstrap interval was [-inf, inf]; with it they
 * are finite, and a 30-20 record reads as 59.8% instead of 60%.
 */
export const RATING_PRIOR_DRAWS = 1;

function interval(successes: number, n: number): Interval {
  return n > 0 ? wilsonInterval(successes, n) : { estimate: NaN, lower: NaN, upper: NaN };
}

function safeP(test: () => { p: number }): number | null {
  try {
    return test().p;
  } catch {
    return null;
  }
}

/**
 * Which of a matchup's z-tests hold, by the rule every report uses (src/stats/heldBack.ts):
 * a normal approximation needs MIN_EXPECTED of each outcome expected. The decisive test
 * expects half the decisive games each way, so it needs 10; the two-proportion test needs
 * 5 wins and 5 non-wins expected in each team's episodes at the pooled rate.
 */
export function matchupTests(episodes: number, aWins: number, bWins: number): { decisive: boolean; twoProportion: boolean; heldBack: string | null } {
  const decisiveGames = aWins + bWins;
  const decisiveNeeds = 2 * MIN_EXPECTED;
  const decisive = decisiveGames >= decisiveNeeds;
  const pooled = episodes > 0 ? decisiveGames / (2 * episodes) : 0;
  const twoProportion = episodes > 0 && episodes * pooled >= MIN_EXPECTED && episodes * (1 - pooled) >= MIN_EXPECTED;
  const reasons = [
    decisive ? null : `no decisive-games test: it needs at least ${decisiveNeeds} decisive games (${MIN_EXPECTED} expected each way), and there ${decisiveGames === 1 ? 'is' : 'are'} ${decisiveGames}`,
    twoProportion ? null : `no two-proportion test: it needs ${MIN_EXPECTED} wins and ${MIN_EXPECTED} other results expected for each team`,
  ].filter((r) => r !== null);
  return { decisive, twoProportion, heldBack: reasons.length ? reasons.join('; ') : null };
}

export function summarizeMatchup(records: readonly EpisodeRecord[], a: string, b: string): MatchupSummary {
  const mine = records.filter((r) => r.a === a && r.b === b);
  const n = mine.length;
  const aWins = mine.filter((r) => r.winner === a).length;
  const bWins = mine.filter((r) => r.winner === b).length;
  const draws = n - aWins - bWins;
  const tests = matchupTests(n, aWins, bWins);
  return {
    a,
    b,
    episodes: n,
    aWins,
    bWins,
    draws,
    aRate: interval(aWins, n),
    bRate: interval(bWins, n),
    drawRate: interval(draws, n),
    pTwoProportion: tests.twoProportion ? safeP(() => twoProportionZTest(aWins, n, bWins, n)) : null,
    pDecisive: tests.decisive ? safeP(() => oneProportionZTest(aWins, aWins + bWins, 0.5)) : null,
    heldBack: tests.heldBack,
    meanDurationSeconds: n ? mine.reduce((s, r) => s + r.durationSeconds, 0) / n : NaN,
  };
}

export function summarizeTeam(records: readonly EpisodeRecord[], team: string): TeamSummary {
  let agentEpisodes = 0;
  let kills = 0;
  let deaths = 0;
  let shots = 0;
  let hits = 0;
  let pickups = 0;
  const skillSeconds = new Map<SkillId, number>();
  const transitions: Record<string, number> = {};
  for (const record of records) {
    for (const agent of record.agents) {
      if (agent.controller !== team) continue;
      agentEpisodes++;
      kills += agent.kills;
      deaths += agent.deaths;
      shots += agent.shots;
      hits += agent.hits;
      pickups += agent.pickups;
      for (const skill of SKILL_IDS) skillSeconds.set(skill, (skillSeconds.get(skill) ?? 0) + (agent.skillSeconds[skill] ?? 0));
      for (const [key, count] of Object.entries(agent.skillTransitions)) transitions[key] = (transitions[key] ?? 0) + count;
    }
  }
  const totalSkill = [...skillSeconds.values()].reduce((s, v) => s + v, 0);
  const skillShare: Partial<Record<SkillId, number>> = {};
  if (totalSkill > 0) for (const [skill, seconds] of skillSeconds) skillShare[skill] = seconds / totalSkill;
  const transitionCount = Object.values(transitions).reduce((s, v) => s + v, 0);
  return {
    team,
    agentEpisodes,
    kills,
    deaths,
    kd: deaths > 0 ? kills / deaths : kills > 0 ? Infinity : NaN,
    shotsPerEpisode: agentEpisodes ? shots / agentEpisodes : NaN,
    accuracy: shots > 0 ? hits / shots : null,
    pickupsPerEpisode: agentEpisodes ? pickups / agentEpisodes : NaN,
    skillShare,
    transitionEntropyBits: transitionCount > 0 ? shannonEntropy(Object.values(transitions)) : null,
  };
}

export function summarizeTournament(records: readonly EpisodeRecord[], teams: readonly string[], seed: number): TournamentSummary {
  const pairs = matchups(teams);
  const matchupSummaries = pairs.map(([a, b]) => summarizeMatchup(records, a, b));
  let ratings: readonly TeamRating[] | null = null;
  let ratingsNote: string | null = null;
  let ratingsSeparation: string | null = null;
  try {
    const results = matchupSummaries.filter((m) => m.episodes > 0).map((m) => ({ a: m.a, b: m.b, winsA: m.aWins, winsB: m.bWins, draws: m.draws }));
    const fit = bradleyTerryRatings(results, { seed, bootstrapSamples: 500, priorDraws: RATING_PRIOR_DRAWS });
    ratings = fit.ratings;
    ratingsSeparation = fit.separation;
  } catch (err) {
    ratingsNote = (err as Error).message;
  }
  return {
    episodes: records.length,
    matchups: matchupSummaries,
    teams: teams.map((t) => summarizeTeam(records, t)),
    ratings,
    ratingsNote,
    ratingsSeparation,
    behaviour: compareBehaviour(records, teams),
  };
}
