/**
 * Episode records as one flat table, one row per episode, for pandas (`pd.read_csv`) or R
 * (`read.csv`): the matchup and its sides, the seed that replays it, who won and how long
 * it took, and each side's summed agent figures. Column names are snake_case identifiers;
 * sides are named by colour (blue, red) and by the matchup's order (first = the team
 * listed first, with `first_side` saying which colour it played).
 */
import { DEFAULT_CONFIG, ticksOf } from '../sim';
import { type CsvValue, toCsv } from '../report/csv';
import type { EpisodeRecord } from './records';

const SIDE_FIGURES = ['kills', 'deaths', 'shots', 'hits', 'damage', 'pickups'] as const;

export const EPISODE_COLUMNS: readonly string[] = [
  'tournament',
  'tournament_seed',
  'key',
  'matchup',
  'first',
  'second',
  'index',
  'seed',
  'blue',
  'red',
  'first_side',
  'winner',
  'winner_side',
  'first_result',
  'duration_s',
  'ticks',
  'progress_blue',
  'progress_red',
  'decisions_blue',
  'decisions_red',
  'first_contact_s',
  ...(['blue', 'red'] as const).flatMap((side) => [...SIDE_FIGURES.map((f) => `${side}_${f}`), `${side}_accuracy`]),
  'hash',
];

function sideFigures(record: EpisodeRecord, side: 'blue' | 'red'): CsvValue[] {
  const sum = { kills: 0, deaths: 0, shots: 0, hits: 0, damage: 0, pickups: 0 };
  for (const a of record.agents) {
    if (a.team !== side) continue;
    sum.kills += a.kills;
    sum.deaths += a.deaths;
    sum.shots += a.shots;
    sum.hits += a.hits;
    sum.damage += a.damageDealt;
    sum.pickups += a.pickups;
  }
  return [...SIDE_FIGURES.map((f) => sum[f]), sum.shots > 0 ? sum.hits / sum.shots : null];
}

/** One row per record, in {@link EPISODE_COLUMNS} order; a missing figure is null (NA). */
export function episodeRow(r: EpisodeRecord): CsvValue[] {
  const firstSide = r.blue === r.a ? 'blue' : 'red';
  const firstResult = r.winner === null ? 'draw' : r.winner === r.a ? 'win' : 'loss';
  return [
    r.tournament ?? null,
    r.tournamentSeed ?? null,
    r.key,
    r.matchup,
    r.a,
    r.b,
    r.index,
    r.seed,
    r.blue,
    r.red,
    firstSide,
    r.winner,
    r.winnerSide,
    firstResult,
    r.durationSeconds,
    // Records keep seconds; tournaments play the default rules, so ticks are exact from them.
    ticksOf(DEFAULT_CONFIG, r.durationSeconds),
    r.progress.blue,
    r.progress.red,
    r.decisions.blue,
    r.decisions.red,
    r.behaviour?.firstContactSeconds ?? null,
    ...sideFigures(r, 'blue'),
    ...sideFigures(r, 'red'),
    r.hash,
  ];
}

/** The records as CSV, by matchup then index (records are kept in the order they finished); team ids are free text: a formula-looking one is defused. */
export function episodesCsv(records: readonly EpisodeRecord[]): string {
  const sorted = [...records].sort((x, y) => (x.matchup < y.matchup ? -1 : x.matchup > y.matchup ? 1 : x.index - y.index));
  return toCsv(EPISODE_COLUMNS, sorted.map(episodeRow), new Set(['tournament', 'matchup', 'first', 'second', 'blue', 'red', 'winner']));
}
