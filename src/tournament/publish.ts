/**
 * A finished reproduction published beside the docs, so that readers see its report and can
 * check its records (docs/reproducing.md, "Its records"):
 *
 *   <dir>/reproduction.md        the report, its data links pointing into the records, its plots beside it
 *   <dir>/reproduction.json      the report's figures
 *   <dir>/<plot>.svg             the report's plots
 *   <dir>/reproduction-records/  the report's files as the run wrote them, and under runs/ the
 *                                manifest and episode records of each row the report holds, the
 *                                records gzipped (gunzip -r unpacks them)
 *
 * Only what the report names is published: a log, a stray file or the folder of a row an
 * earlier run played under other options stays behind. The notes a person wrote under the
 * heading "## Notes on this run" of an earlier <dir>/reproduction.md are kept below the new
 * report: they are nobody's to delete, and whoever publishes reads them again against the new
 * figures. The records are staged beside the published ones and swapped in by renames (a
 * failure leaves the published records as they were); each file after them is written whole.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import { writeWholeFile } from './records';
import { allRows, ROW_KINDS, rowFolder } from './reproduce';

/** The folder under the docs that holds the run's records. */
export const RECORDS_DIR = 'reproduction-records';
/** The heading under which the notes a person wrote about a run start; everything from it on is theirs. */
export const NOTES_HEADING = '## Notes on this run';
/** The heading found however it is spaced or capitalised: a notes section is never dropped for a typo. */
const NOTES_LINE = /^##\s+notes on this run\s*$/im;
/** The files a reproduction writes at the top of its folder (reproduce.ts writeReport): its report, tables and plots. */
const REPORT_FILE = /^reproduction\.(md|json)$|\.(csv|svg|vl\.json)$/;

export class PublishError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PublishError';
  }
}

const RowRef = z.object({ kind: z.enum(ROW_KINDS), first: z.string(), second: z.string(), name: z.string() });
/** What a report's JSON must say before it is published: a reproduction, played whole, and its rows (a report before the planner's rows has none of them). */
const FinishedReport = z.object({
  format: z.literal('hillmind-reproduction'),
  pending: z.array(z.string()).optional(),
  inPlay: z.object({ row: z.string(), episodes: z.number(), of: z.number() }).optional(),
  matchups: z.array(RowRef),
  planner: z.array(RowRef).default([]),
  plans: z.object({ rows: z.array(RowRef), againstBest: z.array(RowRef) }),
  ablations: z.array(RowRef),
});

export interface Published {
  readonly report: string;
  readonly records: string;
  /** Rows whose records were published (gzipped). */
  readonly rows: number;
  /** Whether the notes of the report published before were kept below the new one. */
  readonly keptNotes: boolean;
}

/**
 * Refuses a `dir` to publish into that would overwrite the run in `out` (it, or its records
 * folder, holds the run): said before a run plays, and again as it publishes. Paths are
 * compared as the file system resolves them, links followed.
 */
export function checkPublishTarget(out: string, dir: string): void {
  if (within(dir, out) || within(out, join(dir, RECORDS_DIR))) {
    throw new PublishError(`cannot publish ${out} into ${dir}: its records would overwrite the run; publish beside the docs (e.g. docs), outside the run's folder`);
  }
}

/** Whether `path` is `folder` or inside it. */
function within(path: string, folder: string): boolean {
  const rel = relative(realPath(folder), realPath(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The path with every link in it followed, as far as it exists (the rest appended as given). */
function realPath(path: string): string {
  const absolute = resolve(path);
  if (existsSync(absolute)) return realpathSync.native(absolute);
  const parent = resolve(absolute, '..');
  return parent === absolute ? absolute : join(realPath(parent), relative(parent, absolute));
}

/** Publishes the finished reproduction in `out` into `dir` (docs/); refuses one still in play. */
export function publishReproduction(out: string, dir: string): Published {
  checkPublishTarget(out, dir);
  const report = readReport(out);
  const jsonPath = join(out, 'reproduction.json');
  const finished = readFinished(jsonPath, out);
  const rows = allRows(finished).map((row) => ({ name: row.name, folder: rowFolder(row, row.kind) }));
  const missing = rows.filter((row) => !existsSync(join(out, row.folder, 'episodes.jsonl')));
  if (missing.length) {
    throw new PublishError(`the records of ${missing.map((row) => `${row.name} (${join(out, row.folder, 'episodes.jsonl')})`).join('; ')} are missing: publish the folder that played the report`);
  }

  mkdirSync(dir, { recursive: true });
  const plots = new Set<string>();
  // A link to a file at the top of the run's folder: a plot goes beside the report, anything
  // else is in the records. Other links (a page, another doc) are left as they are.
  const linked = report.replace(/\]\(([^)/:#\s]+)\)/g, (link, file: string) => {
    if (!REPORT_FILE.test(file) || !existsSync(join(out, file))) return link;
    if (file.endsWith('.svg')) {
      plots.add(file);
      return link;
    }
    return `](${RECORDS_DIR}/${file})`;
  });
  const publishedPath = join(dir, 'reproduction.md');
  const notes = existsSync(publishedPath) ? notesOf(readFileSync(publishedPath, 'utf8')) : null;

  swapInRecords(join(dir, RECORDS_DIR), (staging) => {
    for (const name of readdirSync(out)) {
      if (REPORT_FILE.test(name) && statSync(join(out, name)).isFile()) copyFileSync(join(out, name), join(staging, name));
    }
    for (const { folder } of rows) {
      mkdirSync(join(staging, folder), { recursive: true });
      writeFileSync(join(staging, folder, 'episodes.jsonl.gz'), gzipSync(readFileSync(join(out, folder, 'episodes.jsonl'))));
      if (existsSync(join(out, folder, 'manifest.json'))) copyFileSync(join(out, folder, 'manifest.json'), join(staging, folder, 'manifest.json'));
    }
  });
  for (const plot of plots) writeWholeFile(join(dir, plot), readFileSync(join(out, plot), 'utf8'));
  writeWholeFile(join(dir, 'reproduction.json'), readFileSync(jsonPath, 'utf8'));
  writeWholeFile(publishedPath, notes ? `${linked.trimEnd()}\n\n${notes}` : linked);
  return { report: publishedPath, records: join(dir, RECORDS_DIR), rows: rows.length, keptNotes: notes !== null };
}

/** The notes section of a published report (from its notes heading to the end), or null. */
export function notesOf(report: string): string | null {
  const at = report.search(NOTES_LINE);
  return at < 0 ? null : report.slice(at);
}

function readReport(out: string): string {
  const path = join(out, 'reproduction.md');
  if (!existsSync(path)) throw new PublishError(`${path} does not exist: publish the folder a reproduction wrote (npm run reproduce -- --out <dir>)`);
  return readFileSync(path, 'utf8');
}

function readFinished(jsonPath: string, out: string): z.infer<typeof FinishedReport> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(jsonPath, 'utf8'));
  } catch (err) {
    throw new PublishError(`cannot read ${jsonPath} (${(err as Error).message}): run the reproduction again with the same options to write its report anew`);
  }
  const parsed = FinishedReport.safeParse(json);
  if (!parsed.success) {
    throw new PublishError(`${jsonPath} is no reproduction's report (expected "format": "hillmind-reproduction" and its rows): ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
  }
  const { pending, inPlay } = parsed.data;
  if (inPlay || pending?.length) {
    const left = [...(inPlay ? [`${inPlay.row} (${inPlay.episodes} of ${inPlay.of} played)`] : []), ...(pending ?? [])];
    throw new PublishError(`the reproduction in ${out} is not finished (to play: ${left.join('; ')}): run it again with the same options, then publish`);
  }
  return parsed.data;
}

/**
 * Fills a staging folder beside `records`, then swaps it in: the old folder renamed aside, the
 * staged one renamed in, the old one removed. A failure while staging leaves `records` as it
 * was and removes the staging folder; one between the renames is undone by the next publish.
 */
function swapInRecords(records: string, stage: (staging: string) => void): void {
  const staging = `${records}.staging`;
  const old = `${records}.old`;
  // A publish that died between its two renames left the published records aside: back first.
  if (existsSync(old) && !existsSync(records)) renameSync(old, records);
  rmSync(staging, { recursive: true, force: true });
  rmSync(old, { recursive: true, force: true });
  mkdirSync(staging);
  try {
    stage(staging);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  if (existsSync(records)) renameSync(records, old);
  renameSync(staging, records);
  rmSync(old, { recursive: true, force: true });
}
