/**
 * Publishing a reproduction beside the docs: the report's links point into the records, the
 * plots sit beside it, the records unpack to what the run wrote, notes a person wrote are
 * kept, and a run still in play or a folder that would overwrite the run is refused.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
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
  'Data: [rows.csv](rows.csv), [the study](https://example.org/paper), [reproducing](../docs/reproducing.md), [missing.csv](missing.csv).',
  '',
].join('\n');

/** A run's folder as `npm run reproduce` leaves it: top-level report files, and per row its records, manifest and tables. */
function runFolder(json: object = { format: 'hillmind-reproduction', version: 3 }): string {
  const out = freshDir();
  writeFileSync(join(out, 'reproduction.md'), REPORT);
  writeFileSync(join(out, 'reproduction.json'), JSON.stringify(json));
  writeFileSync(join(out, 'matchups.svg'), '<svg>matchups</svg>');
  writeFileSync(join(out, 'rows.csv'), 'matchup\r\nbt vs llm\r\n');
  for (const row of ['runs/bt--vs--llm', 'runs/best-plan/bt--vs--fixed_skills=secure+secure']) {
    mkdirSync(join(out, row), { recursive: true });
    writeFileSync(join(out, row, 'episodes.jsonl'), `{"key":"${row}|0"}\n{"key":"${row}|1"}\n`);
    writeFileSync(join(out, row, 'manifest.json'), `{"row":"${row}"}`);
    writeFileSync(join(out, row, 'report.html'), '<html></html>');
  }
  return out;
}

describe('publishing a reproduction', () => {
  it('writes the report with links into the records, the plots beside it, and the records gzipped', () => {
    const out = runFolder();
    const docs = freshDir();
    const published = publishReproduction(out, docs);
    expect(published).toMatchObject({ report: join(docs, 'reproduction.md'), records: join(docs, RECORDS_DIR), episodeFiles: 2, keptNotes: false });
    const report = readFileSync(join(docs, 'reproduction.md'), 'utf8');
    expect(report).toContain('![matchups beside the study](matchups.svg)');
    expect(report).toContain(`[rows.csv](${RECORDS_DIR}/rows.csv)`);
    // Links that name no file of the run are left alone.
    expect(report).toContain('[the study](https://example.org/paper), [reproducing](../docs/reproducing.md), [missing.csv](missing.csv)');
    expect(readFileSync(join(docs, 'matchups.svg'), 'utf8')).toBe('<svg>matchups</svg>');
    expect(readFileSync(join(docs, 'reproduction.json'), 'utf8')).toBe(readFileSync(join(out, 'reproduction.json'), 'utf8'));
    // The records: the run's top-level files as written, each row's manifest and its records gzipped, not its tables.
    const records = join(docs, RECORDS_DIR);
    expect(readFileSync(join(records, 'reproduction.md'), 'utf8')).toBe(REPORT);
    expect(readdirSync(join(records, 'runs', 'bt--vs--llm')).sort()).toEqual(['episodes.jsonl.gz', 'manifest.json']);
    for (const row of ['runs/bt--vs--llm', 'runs/best-plan/bt--vs--fixed_skills=secure+secure']) {
      expect(gunzipSync(readFileSync(join(records, row, 'episodes.jsonl.gz'))).toString()).toBe(readFileSync(join(out, row, 'episodes.jsonl'), 'utf8'));
    }
    expect(readdirSync(docs).filter((name) => name.endsWith('.tmp') || name.startsWith('.'))).toEqual([]);
  });

  it('keeps the notes written under the report published before, and drops the records of rows the new run lacks', () => {
    const docs = freshDir();
    mkdirSync(join(docs, RECORDS_DIR, 'runs', 'an-old-row'), { recursive: true });
    writeFileSync(join(docs, RECORDS_DIR, 'runs', 'an-old-row', 'episodes.jsonl.gz'), 'old');
    const notes = `${NOTES_HEADING}\n\nWritten after the run: the draws are many.\n`;
    writeFileSync(join(docs, 'reproduction.md'), `# An older report\n\n| old | figures |\n\n${notes}`);
    const published = publishReproduction(runFolder(), docs);
    expect(published.keptNotes).toBe(true);
    const report = readFileSync(join(docs, 'reproduction.md'), 'utf8');
    expect(report).not.toContain('An older report');
    expect(report.endsWith(`[missing.csv](missing.csv).\n\n${notes}`)).toBe(true);
    expect(notesOf(report)).toBe(notes);
    expect(existsSync(join(docs, RECORDS_DIR, 'runs', 'an-old-row'))).toBe(false);
    // Published again, the notes are there once.
    publishReproduction(runFolder(), docs);
    expect(readFileSync(join(docs, 'reproduction.md'), 'utf8')).toBe(report);
  });

  it('refuses a run still in play, a folder that is no reproduction, and a place that would overwrite the run', () => {
    const docs = freshDir();
    const inPlay = runFolder({ format: 'hillmind-reproduction', inPlay: { row: 'bt vs llm', episodes: 882, of: 1000 }, pending: ['bt vs flat'] });
    expect(() => publishReproduction(inPlay, docs)).toThrow(/is not finished \(to play: bt vs llm \(882 of 1000 played\); bt vs flat\): run it again with the same options/);
    expect(() => publishReproduction(runFolder({ format: 'hillmind-tournament' }), docs)).toThrow(/no reproduction's report \(expected "format": "hillmind-reproduction"\)/);
    expect(() => publishReproduction(freshDir(), docs)).toThrow(/reproduction\.md does not exist/);
    const out = runFolder();
    expect(() => publishReproduction(out, out)).toThrow(PublishError);
    expect(() => publishReproduction(out, join(out, 'docs'))).toThrow(/its records would overwrite the run/);
    // --out docs/reproduction-records with --publish docs would replace the run with its own copy.
    const parent = freshDir();
    const recordsAsOut = join(parent, RECORDS_DIR);
    mkdirSync(recordsAsOut);
    expect(() => publishReproduction(recordsAsOut, parent)).toThrow(/its records would overwrite the run/);
    // Nothing was written where it was refused.
    expect(readdirSync(docs)).toEqual([]);
  });
});
