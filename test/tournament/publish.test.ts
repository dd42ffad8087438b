/**
 * Publishing a reproduction beside the docs: the report's links point into the records, the
 * plots sit beside it, the records unpack to what the run wrote for the report's rows and
 * nothing else, notes a person wrote are kept, a failure leaves the published records as they
 * were, and a run still in play or a place that would overwrite the run is refused. The
 * shipped docs/reproduction.md is what publishing its own records makes.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { NOTES_HEADING, PublishError, RECORDS_DIR, notesOf, publishReproduction } from '../../src/tournament/publish';
import { tempDirs } from '../helpers/tempDirs';

const freshDir = tempDirs('publish');

const REPORT = [
  '# The study, reproduced',
  '',
  '![matchups beside the study](matchups.svg)',
  '',
  'Data: [rows.csv](rows.csv), [the study](https://example.org/paper), [reproducing](../docs/reproducing.md), [missing.csv](missing.csv), [the log](run.log).',
  '',
].join('\n');

const ROWS = {
  'runs/bt--vs--llm': { kind: 'study', name: 'bt vs llm', first: 'bt', second: 'llm' },
  'runs/best-plan/bt--vs--fixed_skills=secure+secure': { kind: 'best plan', name: 'bt vs the best constant plan', first: 'bt', second: 'fixed:skills=secure+secure' },
} as const;
const FINISHED = {
  format: 'hillmind-reproduction',
  version: 3,
  matchups: [ROWS['runs/bt--vs--llm']],
  planner: [],
  plans: { rows: [], againstBest: [ROWS['runs/best-plan/bt--vs--fixed_skills=secure+secure']] },
  ablations: [],
};

/** A run's folder as `npm run reproduce` leaves it, with what else may lie there: a log, a stray file, a row an earlier run played. */
function runFolder(json: object = FINISHED): string {
  const out = freshDir();
  writeFileSync(join(out, 'reproduction.md'), REPORT);
  writeFileSync(join(out, 'reproduction.json'), JSON.stringify(json));
  writeFileSync(join(out, 'matchups.svg'), '<svg>matchups</svg>');
  writeFileSync(join(out, 'rows.csv'), 'matchup\r\nbt vs llm\r\n');
  writeFileSync(join(out, 'run.log'), 'progress\n');
  writeFileSync(join(out, '.DS_Store'), '');
  for (const row of [...Object.keys(ROWS), 'runs/llm--vs--an-old-row']) {
    mkdirSync(join(out, row), { recursive: true });
    writeFileSync(join(out, row, 'episodes.jsonl'), `{"key":"${row}|0"}\n{"key":"${row}|1"}\n`);
    writeFileSync(join(out, row, 'manifest.json'), `{"row":"${row}"}`);
    writeFileSync(join(out, row, 'report.html'), '<html></html>');
  }
  return out;
}

describe('publishing a reproduction', () => {
  it("writes the report with links into the records, the plots beside it, and the report's rows' records gzipped", () => {
    const out = runFolder();
    const docs = freshDir();
    const published = publishReproduction(out, docs);
    expect(published).toEqual({ report: join(docs, 'reproduction.md'), records: join(docs, RECORDS_DIR), rows: 2, keptNotes: false });
    const report = readFileSync(join(docs, 'reproduction.md'), 'utf8');
    expect(report).toContain('![matchups beside the study](matchups.svg)');
    expect(report).toContain(`[rows.csv](${RECORDS_DIR}/rows.csv)`);
    // Links that name no file of the report are left alone.
    expect(report).toContain('[the study](https://example.org/paper), [reproducing](../docs/reproducing.md), [missing.csv](missing.csv), [the log](run.log)');
    expect(readFileSync(join(docs, 'matchups.svg'), 'utf8')).toBe('<svg>matchups</svg>');
    expect(readFileSync(join(docs, 'reproduction.json'), 'utf8')).toBe(readFileSync(join(out, 'reproduction.json'), 'utf8'));
    // The records: the report's files as written, each of its rows' manifest and records gzipped, nothing else.
    const records = join(docs, RECORDS_DIR);
    expect(readdirSync(records).sort()).toEqual(['matchups.svg', 'reproduction.json', 'reproduction.md', 'rows.csv', 'runs']);
    expect(readFileSync(join(records, 'reproduction.md'), 'utf8')).toBe(REPORT);
    expect(readdirSync(join(records, 'runs')).sort()).toEqual(['best-plan', 'bt--vs--llm']);
    for (const row of Object.keys(ROWS)) {
      expect(readdirSync(join(records, row)).sort()).toEqual(['episodes.jsonl.gz', 'manifest.json']);
      expect(gunzipSync(readFileSync(join(records, row, 'episodes.jsonl.gz'))).toString()).toBe(readFileSync(join(out, row, 'episodes.jsonl'), 'utf8'));
    }
    expect(readdirSync(docs).sort()).toEqual(['matchups.svg', RECORDS_DIR, 'reproduction.json', 'reproduction.md']);
  });

  it('keeps the notes written under the report published before, and replaces the records of the run before', () => {
    const docs = freshDir();
    mkdirSync(join(docs, RECORDS_DIR, 'runs', 'an-old-row'), { recursive: true });
    writeFileSync(join(docs, RECORDS_DIR, 'runs', 'an-old-row', 'episodes.jsonl.gz'), 'old');
    // However its heading is spaced or capitalised.
    const notes = `## Notes on this Run  \n\nWritten after the run: the draws are many.\n`;
    writeFileSync(join(docs, 'reproduction.md'), `# An older report\n\n| old | figures |\n\n${notes}`);
    const published = publishReproduction(runFolder(), docs);
    expect(published.keptNotes).toBe(true);
    const report = readFileSync(join(docs, 'reproduction.md'), 'utf8');
    expect(report).not.toContain('An older report');
    expect(report.endsWith(`[the log](run.log).\n\n${notes}`)).toBe(true);
    expect(notesOf(report)).toBe(notes);
    expect(notesOf(`# A report\n\n${NOTES_HEADING}\n\nmine\n`)).toBe(`${NOTES_HEADING}\n\nmine\n`);
    expect(existsSync(join(docs, RECORDS_DIR, 'runs', 'an-old-row'))).toBe(false);
    // Published again, the notes are there once.
    publishReproduction(runFolder(), docs);
    expect(readFileSync(join(docs, 'reproduction.md'), 'utf8')).toBe(report);
  });

  it('leaves the published records as they were where publishing fails, and puts back those a failed swap left aside', () => {
    const docs = freshDir();
    publishReproduction(runFolder(), docs);
    const before = readFileSync(join(docs, RECORDS_DIR, 'reproduction.md'), 'utf8');
    const broken = runFolder();
    writeFileSync(join(broken, 'reproduction.md'), '# A newer report\n');
    // A row's records that cannot be read (a folder where the file should be) fail the staging.
    const row = join(broken, 'runs', 'bt--vs--llm', 'episodes.jsonl');
    rmSync(row);
    mkdirSync(row);
    expect(() => publishReproduction(broken, docs)).toThrow(/EISDIR/);
    expect(readFileSync(join(docs, RECORDS_DIR, 'reproduction.md'), 'utf8')).toBe(before);
    expect(readFileSync(join(docs, 'reproduction.md'), 'utf8')).not.toContain('A newer report');
    expect(readdirSync(docs).sort()).toEqual(['matchups.svg', RECORDS_DIR, 'reproduction.json', 'reproduction.md']);
    // Killed between the swap's two renames: the records aside are taken back, then replaced.
    renameSync(join(docs, RECORDS_DIR), join(docs, `${RECORDS_DIR}.old`));
    publishReproduction(runFolder(), docs);
    expect(readdirSync(docs).sort()).toEqual(['matchups.svg', RECORDS_DIR, 'reproduction.json', 'reproduction.md']);
    expect(readFileSync(join(docs, RECORDS_DIR, 'reproduction.md'), 'utf8')).toBe(REPORT);
  });

  it('refuses a run still in play, a report that is no reproduction or lacks records, and a place that would overwrite the run', () => {
    const docs = freshDir();
    const inPlay = runFolder({ ...FINISHED, inPlay: { row: 'bt vs llm', episodes: 882, of: 1000 }, pending: ['bt vs flat'] });
    expect(() => publishReproduction(inPlay, docs)).toThrow(/is not finished \(to play: bt vs llm \(882 of 1000 played\); bt vs flat\): run it again with the same options/);
    expect(() => publishReproduction(runFolder({ ...FINISHED, format: 'hillmind-tournament' }), docs)).toThrow(/no reproduction's report \(expected "format": "hillmind-reproduction" and its rows\): format/);
    const cut = runFolder();
    writeFileSync(join(cut, 'reproduction.json'), '{"format": "hillmind-repro');
    expect(() => publishReproduction(cut, docs)).toThrow(/cannot read .*reproduction\.json .*: run the reproduction again/);
    const lacking = runFolder({ ...FINISHED, ablations: [{ kind: 'ablation', name: 'two personas', first: 'llm:persona=aggressive', second: 'llm:persona=cautious' }] });
    expect(() => publishReproduction(lacking, docs)).toThrow(/the records of two personas \(.*runs\/llm_persona=aggressive--vs--llm_persona=cautious\/episodes\.jsonl\) are missing/);
    expect(() => publishReproduction(freshDir(), docs)).toThrow(/reproduction\.md does not exist/);
    const out = runFolder();
    expect(() => publishReproduction(out, out)).toThrow(PublishError);
    expect(() => publishReproduction(out, join(out, 'docs'))).toThrow(/its records would overwrite the run/);
    // --out docs/reproduction-records with --publish docs would replace the run with its own copy, through a link too.
    const parent = freshDir();
    mkdirSync(join(parent, RECORDS_DIR));
    expect(() => publishReproduction(join(parent, RECORDS_DIR), parent)).toThrow(/its records would overwrite the run/);
    const link = join(freshDir(), 'run');
    symlinkSync(join(parent, RECORDS_DIR), link);
    expect(() => publishReproduction(link, parent)).toThrow(/its records would overwrite the run/);
    // Nothing was written where it was refused.
    expect(readdirSync(docs)).toEqual([]);
  });

  it('makes the shipped docs/reproduction.md from its own records', () => {
    // The shipped records unpacked, as docs/reproducing.md says, and the shipped report's notes beside them.
    const out = freshDir();
    cpSync(join('docs', RECORDS_DIR), out, { recursive: true });
    const packed = readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.gz'));
    for (const file of packed) writeFileSync(join(out, file.replace(/\.gz$/, '')), gunzipSync(readFileSync(join(out, file))));
    const docs = freshDir();
    cpSync(join('docs', 'reproduction.md'), join(docs, 'reproduction.md'));
    const published = publishReproduction(out, docs);
    expect(published.rows).toBe(packed.length);
    expect(readFileSync(join(docs, 'reproduction.md'), 'utf8')).toBe(readFileSync(join('docs', 'reproduction.md'), 'utf8'));
    expect(readFileSync(join(docs, 'reproduction.json'), 'utf8')).toBe(readFileSync(join('docs', 'reproduction.json'), 'utf8'));
    for (const plot of ['matchups.svg', 'skills.svg']) expect(readFileSync(join(docs, plot), 'utf8')).toBe(readFileSync(join('docs', plot), 'utf8'));
    expect(readdirSync(join(docs, RECORDS_DIR), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.gz')).sort()).toEqual(packed.sort());
  });
});
