/**
 * The records a resumed tournament finds on disk, checked before any is trusted: each
 * record carries the id and seed of the tournament that wrote it, and a record of another
 * tournament (a manifest deleted and the folder resumed with --seed 2) or one whose episode
 * differs from this plan (seed, sides) stops the run naming the file. A record that appears
 * twice (two writers once shared the folder) is kept once and counted, so nothing is
 * summarised twice.
 */
import type { PlannedEpisode } from './plan';
import type { EpisodeRecord } from './records';
import { countOf } from '../sim';

/** Who wrote a record: the tournament's id and its seed. */
export interface TournamentStamp {
  readonly id: string;
  readonly seed: number;
}

/** A record as this tournament writes it: stamped with its id and seed. */
export function stampRecord(record: EpisodeRecord, stamp: TournamentStamp): EpisodeRecord {
  return { ...record, tournament: stamp.id, tournamentSeed: stamp.seed };
}

/** Whether a record is of the planned episode: same matchup, index, seed and sides. */
export function sameEpisode(planned: PlannedEpisode, record: PlannedEpisode): boolean {
  return planned.seed === record.seed && planned.blue === record.blue && planned.red === record.red && planned.a === record.a && planned.b === record.b && planned.index === record.index;
}

export interface ExistingRecords {
  /** The planned episodes' records, each once, in file order. */
  readonly records: readonly EpisodeRecord[];
  /** Records dropped because their episode was already read earlier in the file. */
  readonly duplicates: number;
}

/**
 * Check `found` (read from `path`) against this tournament and its plan; keep each planned
 * episode's first record. Records of unplanned episodes are left out (a plan of fewer
 * teams). Throws, naming `path` and the first few offenders, on a record of another
 * tournament or of another episode than planned.
 */
export function checkExistingRecords(path: string, found: readonly EpisodeRecord[], stamp: TournamentStamp, plan: readonly PlannedEpisode[]): ExistingRecords {
  const planned = new Map(plan.map((e) => [e.key, e]));
  const foreign: string[] = [];
  const records: EpisodeRecord[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  for (const record of found) {
    const ofAnother =
      (record.tournament !== undefined && record.tournament !== stamp.id) || (record.tournamentSeed !== undefined && record.tournamentSeed !== stamp.seed);
    if (ofAnother) {
      foreign.push(`${record.key} of tournament ${record.tournament ?? '?'} (seed ${record.tournamentSeed ?? '?'})`);
      continue;
    }
    const episode = planned.get(record.key);
    if (!episode) continue;
    if (!sameEpisode(episode, record)) {
      foreign.push(`${record.key} with seed ${record.seed}, ${record.blue} blue (planned: seed ${episode.seed}, ${episode.blue} blue)`);
      continue;
    }
    if (seen.has(record.key)) {
      duplicates++;
      continue;
    }
    seen.add(record.key);
    records.push(record);
  }
  if (foreign.length) {
    const listed = foreign.slice(0, 3).join('; ') + (foreign.length > 3 ? `; and ${foreign.length - 3} more` : '');
    throw new Error(
      `${path} holds ${countOf(foreign.length, 'record')} that this tournament (id ${stamp.id}, seed ${stamp.seed}) did not plan: ${listed}. ` +
        'They belong to another run (was manifest.json deleted or --seed changed?): restore its manifest and settings, or choose a new --out.',
    );
  }
  return { records, duplicates };
}
