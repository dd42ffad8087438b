import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { nothingToCompare, readComparedRecords, sameAs, sameAsText } from '../../src/tournament/sameAs';
import { runCommand } from '../cli/command';
import { tempDirs } from '../helpers/tempDirs';

const freshDir = tempDirs('same-as');

const record = (key: string, seed: number, hash: string, winner: string | null = 'bt') => ({ key, seed, hash, winner });

describe('sameAs', () => {
  it('compares the episodes both recorded by key and seed, and names each that ended elsewhere', () => {
    const ours = [record('a|b|0', 1, 'h0'), record('a|b|1', 2, 'h1'), record('a|b|2', 3, 'h2'), record('a|b|3', 4, 'h3')];
    const theirs = [record('a|b|0', 1, 'h0'), record('a|b|1', 2, 'other', null), record('a|b|2', 99, 'h2')];
    const report = sameAs(ours, theirs);
    expect(report).toMatchObject({ compared: 2, same: 1, otherSeeds: 1, onlyOurs: 1 });
    expect(report.different).toEqual([{ key: 'a|b|1', seed: 2, ours: { hash: 'h1', winner: 'bt' }, theirs: { hash: 'other', winner: null } }]);
    const text = sameAsText(report, 'there/');
    expect(text).toContain('1 of 2 episodes recorded in both ended in the same state as there/');
    expect(text).toContain('a|b|1 (seed 2): here h1, bt; there other, draw');
  });

  it('holds a record found twice at its first, and says when nothing was recorded in both', () => {
    const report = sameAs([record('a|b|0', 1, 'h0')], [record('a|b|0', 1, 'h0'), record('a|b|0', 1, 'later')]);
    expect(report).toMatchObject({ compared: 1, same: 1 });
    const none = sameAs([record('a|b|0', 1, 'h0')], []);
    expect(none).toMatchObject({ compared: 0, onlyOurs: 1 });
    expect(sameAsText(none, 'there/')).toContain('no episode recorded in both here and in there/: nothing to compare');
  });

  it('reads a run still being written without cutting its torn last line, and refuses a line that is no record', () => {
    const dir = freshDir();
    const file = join(dir, 'episodes.jsonl');
    const torn = `${JSON.stringify(record('a|b|0', 1, 'h0'))}\n{"key":"a|b|1","se`;
    writeFileSync(file, torn);
    expect(readComparedRecords(dir)).toEqual([{ ...record('a|b|0', 1, 'h0'), cacheHits: 0 }]);
    expect(readFileSync(file, 'utf8')).toBe(torn);
    // The cache's answers are counted over the llm sides.
    writeFileSync(file, `${JSON.stringify({ ...record('a|b|0', 1, 'h0'), llm: { red: { cacheHits: 3, calls: 9 }, blue: { cacheHits: 1 } } })}\n`);
    expect(readComparedRecords(file)[0]!.cacheHits).toBe(4);
    writeFileSync(file, `${JSON.stringify({ key: 'a|b|0', seed: 1 })}\n`);
    expect(() => readComparedRecords(file)).toThrow(/line 1 is not an episode record: expected key, seed, hash and winner, and llm sides with their cacheHits \(hash/);
    expect(() => readComparedRecords(join(dir, 'nowhere'))).toThrow(/does not exist: expected a tournament's folder, its episodes.jsonl or a published episodes.jsonl.gz/);
    // A published run's records are gzipped: read as they are; a cut file is refused, naming it.
    const published = join(dir, 'published');
    mkdirSync(published);
    const lines = `${JSON.stringify(record('a|b|0', 1, 'h0'))}\n${JSON.stringify(record('a|b|1', 2, 'h1', null))}\n`;
    writeFileSync(join(published, 'episodes.jsonl.gz'), gzipSync(lines));
    expect(readComparedRecords(published)).toEqual([{ ...record('a|b|0', 1, 'h0'), cacheHits: 0 }, { ...record('a|b|1', 2, 'h1', null), cacheHits: 0 }]);
    const whole = readFileSync(join(published, 'episodes.jsonl.gz'));
    writeFileSync(join(published, 'cut.jsonl.gz'), whole.subarray(0, whole.length - 8));
    expect(() => readComparedRecords(join(published, 'cut.jsonl.gz'))).toThrow(/cut\.jsonl\.gz is not a whole gzip file \(.*\): expected the gzipped episodes\.jsonl of a published run/);
    // A tournament's folder before its first episode ended holds its manifest and no record yet;
    // a folder with neither (a reproduction's runs/, not one of its rows) is refused, naming it.
    mkdirSync(join(dir, 'starting'));
    expect(() => readComparedRecords(join(dir, 'starting'))).toThrow(/starting holds no episodes\.jsonl, episodes\.jsonl\.gz or manifest\.json: expected one tournament's folder/);
    writeFileSync(join(dir, 'starting', 'manifest.json'), '{}');
    expect(readComparedRecords(join(dir, 'starting'))).toEqual([]);
  });
});

describe('published records', () => {
  it('are read as publishing wrote them: the shipped bt vs flat row, every episode once', () => {
    const records = readComparedRecords('docs/reproduction-records/runs/bt--vs--flat');
    expect(records).toHaveLength(1000);
    const indexes = records.map((r) => Number(r.key.split('|')[2])).sort((a, b) => a - b);
    expect(records.every((r) => r.key.startsWith('bt|flat|'))).toBe(true);
    expect(indexes).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });
});

describe('nothingToCompare', () => {
  it('says so where no planned episode is recorded there with its seed, and nothing where one is or none is recorded yet', () => {
    const theirs = [record('bt|flat|0', 11, 'h'), record('bt|flat|1', 12, 'h')];
    expect(nothingToCompare([{ key: 'bt|flat|1', seed: 12 }], theirs, 'there')).toBe(null);
    expect(nothingToCompare([{ key: 'bt|flat|0', seed: 99 }], [], 'there')).toBe(null);
    expect(nothingToCompare([{ key: 'flat|bt|0', seed: 11 }], theirs, 'there')).toMatch(/^none of the episodes this run plans is recorded in there with the same seed \(it holds 2, e.g. teams bt,flat\): give --teams in that run's order and its --seed/);
    expect(nothingToCompare([{ key: 'bt|flat|0', seed: 99 }], theirs, 'there')).not.toBe(null);
  });
});

describe('npm run tournament -- --same-as', () => {
  it('passes where the same seeds ended in the same states, and exits 1 naming an episode that did not', async () => {
    const first = join(freshDir(), 'first');
    const played = await runCommand('tournament.ts', ['--teams', 'bt-scripted,random', '--episodes', '3', '--out', first, '--workers', '1']);
    expect(played.code).toBe(0);
    const again = await runCommand('tournament.ts', ['--teams', 'bt-scripted,random', '--episodes', '4', '--out', join(freshDir(), 'again'), '--workers', '1', '--same-as', first]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`3 of 3 episodes recorded in both ended in the same state as ${first}`);
    expect(again.stdout).toContain('1 not recorded there (yet)');
    // Another seed compares nothing: refused before anything plays.
    const otherSeed = join(freshDir(), 'other-seed');
    const refused = await runCommand('tournament.ts', ['--teams', 'bt-scripted,random', '--episodes', '3', '--seed', '7', '--out', otherSeed, '--workers', '1', '--same-as', first]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--same-as: none of the episodes this run plans is recorded in .* with the same seed/);
    expect(existsSync(join(otherSeed, 'episodes.jsonl'))).toBe(false);

    // Another final state for episode 1: the check names it and fails.
    const lines = readFileSync(join(first, 'episodes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { key: string; hash: string });
    const changed = lines.find((r) => r.key.endsWith('|1'))!;
    appendFileSync(join(first, 'other.jsonl'), lines.map((r) => JSON.stringify(r === changed ? { ...r, hash: '0000000000000000' } : r)).join('\n') + '\n');
    const differs = await runCommand('tournament.ts', ['--teams', 'bt-scripted,random', '--episodes', '3', '--out', join(freshDir(), 'third'), '--workers', '1', '--same-as', join(first, 'other.jsonl')]);
    expect(differs.code).toBe(1);
    expect(differs.stdout).toContain('2 of 3 episodes recorded in both ended in the same state');
    expect(differs.stdout).toContain(`${changed.key} (seed`);
  });
});
