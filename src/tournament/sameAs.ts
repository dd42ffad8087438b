/**
 * Whether two runs played the same episodes the same way: every episode both recorded (the
 * same key and seed) ended in the same final state (its state hash). The same seed gives the
 * same match on any machine, whatever its core count, and with a language model in lockstep
 * whether or not the decision cache answered; this is how a run shows it (`npm run
 * tournament -- ... --same-as <dir>`), for example that episodes played with the cache on
 * are the ones a cache-off run of the same model played.
 *
 * The other run's records are only read, never repaired: it may still be writing them (a
 * torn last line is skipped, not cut off its file). Each line read is checked for what the
 * comparison needs, and one that lacks it stops the comparison naming the line.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';

/** What a comparison reads of a record: its episode, final state and winner, and how many of its language-model decisions the cache answered. */
const comparedRecord = z
  .object({
    key: z.string(),
    seed: z.number(),
    hash: z.string(),
    winner: z.string().nullable(),
    llm: z.record(z.string(), z.object({ cacheHits: z.number().int().min(0) })).optional(),
  })
  .transform(({ llm, ...r }) => ({ ...r, cacheHits: Object.values(llm ?? {}).reduce((n, side) => n + side.cacheHits, 0) }));
export type ComparedRecord = z.input<typeof comparedRecord>;
type ReadRecord = z.output<typeof comparedRecord>;

/** One episode both runs recorded whose final states differ. */
export interface DifferentEpisode {
  readonly key: string;
  readonly seed: number;
  readonly ours: { readonly hash: string; readonly winner: string | null };
  readonly theirs: { readonly hash: string; readonly winner: string | null };
}

export interface SameAsReport {
  /** Episodes both runs recorded. */
  readonly compared: number;
  /** Of those, the ones that ended in the same state. */
  readonly same: number;
  /** The rest, in our records' order. */
  readonly different: readonly DifferentEpisode[];
  /** Keys both hold whose seeds differ: not the same episode (another tournament seed). */
  readonly otherSeeds: number;
  /** Our episodes the other run has not recorded (yet). */
  readonly onlyOurs: number;
}

/**
 * The complete records of a run's episodes.jsonl (a folder or the file), read-only and
 * checked line by line; none in a folder without one yet. A published run's records are
 * gzipped (episodes.jsonl.gz, docs/reproduction-records): read as they are, so a checkout
 * checks them by playing their seeds again.
 */
export function readComparedRecords(path: string): ReadRecord[] {
  const folder = existsSync(path) && statSync(path).isDirectory();
  const file = folder ? ([join(path, 'episodes.jsonl'), join(path, 'episodes.jsonl.gz')].find((f) => existsSync(f)) ?? join(path, 'episodes.jsonl')) : path;
  if (!existsSync(file)) {
    // A tournament's folder before its first episode ended (its manifest is written first): nothing recorded yet.
    if (folder && existsSync(join(path, 'manifest.json'))) return [];
    if (folder) throw new Error(`${path} holds no episodes.jsonl, episodes.jsonl.gz or manifest.json: expected one tournament's folder (a reproduction's row is one of its runs/ folders, e.g. runs/bt--vs--flat)`);
    throw new Error(`${file} does not exist: expected a tournament's folder, its episodes.jsonl or a published episodes.jsonl.gz`);
  }
  const text = file.endsWith('.gz') ? gunzippedText(file) : readFileSync(file, 'utf8');
  // A line still being written (no newline yet) is not read.
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  return complete.split('\n').flatMap((line, i) => {
    if (!line) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new Error(`${file} line ${i + 1} is not JSON: expected one episode record per line`);
    }
    const record = comparedRecord.safeParse(parsed);
    if (!record.success) throw new Error(`${file} line ${i + 1} is not an episode record: expected key, seed, hash and winner, and llm sides with their cacheHits (${record.error.issues[0]!.path.join('.')}: ${record.error.issues[0]!.message})`);
    return [record.data];
  });
}

/** A gzipped file's text, whole: a cut or damaged file is refused, naming it. */
function gunzippedText(file: string): string {
  let bytes: Buffer;
  try {
    bytes = gunzipSync(readFileSync(file));
  } catch (err) {
    throw new Error(`${file} is not a whole gzip file (${(err as Error).message}): expected the gzipped episodes.jsonl of a published run; copy it again`);
  }
  return bytes.toString('utf8');
}

/**
 * Why a run of `settings` would compare none of `theirs`, or null where some of its planned
 * episodes are recorded there with the same seed (or nothing is recorded there yet). Said
 * before playing: a run of the wrong teams, order or seed would only find it out at its end.
 */
export function nothingToCompare(planned: readonly Pick<Compared, 'key' | 'seed'>[], theirs: readonly Pick<Compared, 'key' | 'seed'>[], path: string): string | null {
  if (theirs.length === 0) return null;
  const seeds = new Map(theirs.map((r) => [r.key, r.seed]));
  if (planned.some((p) => seeds.get(p.key) === p.seed)) return null;
  const example = theirs[0]!.key.split('|').slice(0, 2).join(',');
  return `none of the episodes this run plans is recorded in ${path} with the same seed (it holds ${theirs.length}, e.g. teams ${example}): give --teams in that run's order and its --seed (1 for a reproduction's rows, 2 against the best plan)`;
}

/** What the comparison needs of a record. */
type Compared = Pick<ComparedRecord, 'key' | 'seed' | 'hash' | 'winner'>;

/** Compare our records with theirs, episode by episode. */
export function sameAs(ours: readonly Compared[], theirs: readonly Compared[]): SameAsReport {
  // A record found twice (two writers once shared a folder) counts as its first, as a resumed run keeps it (existing.ts).
  const byKey = new Map<string, Compared>();
  for (const r of theirs) if (!byKey.has(r.key)) byKey.set(r.key, r);
  const different: DifferentEpisode[] = [];
  let compared = 0;
  let otherSeeds = 0;
  let onlyOurs = 0;
  for (const record of ours) {
    const other = byKey.get(record.key);
    if (!other) onlyOurs++;
    else if (other.seed !== record.seed) otherSeeds++;
    else {
      compared++;
      if (other.hash !== record.hash) different.push({ key: record.key, seed: record.seed, ours: { hash: record.hash, winner: record.winner }, theirs: { hash: other.hash, winner: other.winner } });
    }
  }
  return { compared, same: compared - different.length, different, otherSeeds, onlyOurs };
}

/** The report as the command prints it; the first few differing episodes by name. */
export function sameAsText(report: SameAsReport, theirs: string, shown = 10): string {
  const lines = [
    report.compared === 0
      ? `no episode recorded in both here and in ${theirs}: nothing to compare (the same teams and --seed play the same episodes)`
      : `${report.same} of ${report.compared} episodes recorded in both ended in the same state as ${theirs}`,
  ];
  if (report.onlyOurs) lines.push(`${report.onlyOurs} not recorded there (yet)`);
  if (report.otherSeeds) lines.push(`${report.otherSeeds} recorded there with another seed (another tournament seed): not compared`);
  const winner = (w: string | null) => w ?? 'draw';
  for (const d of report.different.slice(0, shown)) {
    lines.push(`  ${d.key} (seed ${d.seed}): here ${d.ours.hash}, ${winner(d.ours.winner)}; there ${d.theirs.hash}, ${winner(d.theirs.winner)}`);
  }
  if (report.different.length > shown) lines.push(`  and ${report.different.length - shown} more`);
  return lines.join('\n');
}
