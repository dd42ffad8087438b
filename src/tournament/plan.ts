/**
 * A tournament's plan: every pairing of the teams (round robin), n episodes each, sides
 * swapped on every other episode, each episode seeded from (tournament seed, matchup,
 * index) so `npm run match` can replay any single one.
 */
import { deriveSeed } from '../sim';

export interface TournamentSettings {
  readonly teams: readonly string[];
  readonly episodes: number;
  readonly seed: number;
}

export interface PlannedEpisode {
  /** Unique within the tournament: "a|b|index". */
  readonly key: string;
  /** The pairing as listed: `a` is the first team of the matchup. */
  readonly a: string;
  readonly b: string;
  readonly index: number;
  readonly seed: number;
  readonly blue: string;
  readonly red: string;
}

export function matchups(teams: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i < teams.length; i++) for (let j = i + 1; j < teams.length; j++) pairs.push([teams[i]!, teams[j]!]);
  return pairs;
}

export function episodeSeed(tournamentSeed: number, a: string, b: string, index: number): number {
  return deriveSeed(tournamentSeed, `${a}|${b}`, index);
}

export function planEpisodes(settings: TournamentSettings): PlannedEpisode[] {
  const plan: PlannedEpisode[] = [];
  for (const [a, b] of matchups(settings.teams)) {
    for (let index = 0; index < settings.episodes; index++) {
      const swapped = index % 2 === 1;
      plan.push({
        key: `${a}|${b}|${index}`,
        a,
        b,
        index,
        seed: episodeSeed(settings.seed, a, b, index),
        blue: swapped ? b : a,
        red: swapped ? a : b,
      });
    }
  }
  return plan;
}
