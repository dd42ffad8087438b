/**
 * A finished reproduction published beside the docs, so that readers see its report and can
 * check its records (docs/reproducing.md, "Its records"):
 *
 *   <dir>/reproduction.md        the report, its data links pointing into the records, its plots beside it
 *   <dir>/reproduction.json      the report's figures
 *   <dir>/<plot>.svg             the report's plots
 *   <dir>/reproduction-records/  the run's top-level files as written, and under runs/ each row's
 *                                manifest and its episode records, gzipped (gunzip -r unpacks them)
 *
 * The notes a person wrote under the report's last heading ("## Notes on this run") in an
 * earlier <dir>/reproduction.md are kept below the new report: they are nobody's to delete,
 * and whoever publishes reads them again against the new figures. Each file is written whole
 * (a temporary file, then a rename), and the records folder is replaced as one.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import { writeWholeFile } from './records';

/** The folder under the docs that holds the run's records. */
export const RECORDS_DIR = 'reproduction-records';
/** The heading under which the notes a person wrote about a run start; everything from it on is theirs. */
export const NOTES_HEADING = '## Notes on this run';
/** What of a row's folder is published: the rest (tables, plots, the row's own report) its records make again. */
const ROW_FILES = new Set(['manifest.json', 'episodes.jsonl']);

export class PublishError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PublishError';
  }
}

/** What a report's JSON must say before it is published: a reproduction, played whole. */
const FinishedReport = z.object({
  format: z.literal('hillmind-reproduction'),
  pending: z.array(z.string()).optional(),
  inPlay: z.object({ row: z.string(), episodes: z.number(), of: z.number() }).optional(),
});

export interface Published {
  readonly report: string;
  readonly records: string;
  /** Episode record files gzipped into the records. */
  readonly episodeFiles: number;
  /** Whether the notes of the report published before were kept below the new one. */
  readonly keptNotes: boolean;
}

/** Refuses a `dir` to publish into that would overwrite the run in `out`: said before a run plays, and again as it publishes. */
export function checkPublishTarget(out: string, dir: string): void {
  if (within(dir, out) || within(out, join(dir, RECORDS_DIR))) {
    throw new PublishError(`cannot publish ${out} into ${dir}: its records would overwrite the run; publish beside the docs (e.g. docs), outside the run's folder`);
  }
}

const within = (path: string, folder: string) => {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** Publishes the finished reproduction in `out` into `dir` (docs/); refuses one still in play. */
export function publishReproduction(out: string, dir: string): Published {
  checkPublishTarget(out, dir);
  const reportPath = join(out, 'reproduction.md');
  const jsonPath = join(out, 'reproduction.json');
  for (const path of [reportPath, jsonPath]) {
    if (!existsSync(path)) throw new PublishError(`${path} does not exist: publish the folder a reproduction wrote (npm run reproduce -- --out <dir>)`);
  }
  const parsed = FinishedReport.safeParse(JSON.parse(readFileSync(jsonPath, 'utf8')));
  if (!parsed.success) throw new PublishError(`${jsonPath} is no reproduction's report (expected "format": "hillmind-reproduction")`);
  const { pending, inPlay } = parsed.data;
  if (inPlay || pending?.length) {
    const left = [...(inPlay ? [`${inPlay.row} (${inPlay.episodes} of ${inPlay.of} played)`] : []), ...(pending ?? [])];
    throw new PublishError(`the reproduction in ${out} is not finished (to play: ${left.join('; ')}): run it again with the same options, then publish`);
  }

  mkdirSync(dir, { recursive: true });
  const report = readFileSync(reportPath, 'utf8');
  const plots = new Set<string>();
  // A link to a file at the top of the run's folder: a plot goes beside the report, anything
  // else is in the records. Other links (a page, another doc) are left as they are.
  const linked = report.replace(/\]\(([^)/:#\s]+)\)/g, (link, file: string) => {
    if (!existsSync(join(out, file))) return link;
    if (file.endsWith('.svg')) {
      plots.add(file);
      return link;
    }
    return `](${RECORDS_DIR}/${file})`;
  });
  const publishedPath = join(dir, 'reproduction.md');
  const notes = existsSync(publishedPath) ? notesOf(readFileSync(publishedPath, 'utf8')) : null;

  const records = join(dir, RECORDS_DIR);
  const staging = join(dir, `.${RECORDS_DIR}.tmp`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  for (const name of readdirSync(out)) {
    const path = join(out, name);
    if (statSync(path).isFile()) copyFileSync(path, join(staging, name));
  }
  const episodeFiles = existsSync(join(out, 'runs')) ? copyRows(join(out, 'runs'), join(staging, 'runs')) : 0;
  rmSync(records, { recursive: true, force: true });
  renameSync(staging, records);

  for (const plot of plots) writeWholeFile(join(dir, plot), readFileSync(join(out, plot), 'utf8'));
  writeWholeFile(join(dir, 'reproduction.json'), readFileSync(jsonPath, 'utf8'));
  writeWholeFile(publishedPath, notes ? `${linked.trimEnd()}\n\n${notes}` : linked);
  return { report: publishedPath, records, episodeFiles, keptNotes: notes !== null };
}

/** The notes section of a published report (from NOTES_HEADING to the end), or null. */
export function notesOf(report: string): string | null {
  const at = report.search(new RegExp(`^${NOTES_HEADING}$`, 'm'));
  return at < 0 ? null : report.slice(at);
}

/** Copies each row's manifest and records under `from` into `to`, the records gzipped; returns how many records files. */
function copyRows(from: string, to: string): number {
  let episodeFiles = 0;
  for (const name of readdirSync(from).sort()) {
    const path = join(from, name);
    if (statSync(path).isDirectory()) {
      episodeFiles += copyRows(path, join(to, name));
    } else if (ROW_FILES.has(name)) {
      mkdirSync(to, { recursive: true });
      if (name.endsWith('.jsonl')) {
        writeFileSync(join(to, `${name}.gz`), gzipSync(readFileSync(path), { level: 9 }));
        episodeFiles++;
      } else {
        copyFileSync(path, join(to, name));
      }
    }
  }
  return episodeFiles;
}
