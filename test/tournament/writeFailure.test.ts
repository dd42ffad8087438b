/**
 * A tournament's files: a write that fails (a full disk here: the records file is
 * /dev/full) is one error naming the file, not the worker pool's complaints as it stops;
 * whole files are written whole or not at all; resuming with another team list says the
 * teams changed.
 */
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordWriter, writeWholeFile } from '../../src/tournament/records';
import { runTournament } from '../../src/tournament/run';
import { nodeTestPlatform } from '../helpers/platform';
import { tempDir } from '../helpers/tempDirs';

const root = tempDir('writes');
const FULL = '/dev/full';
const record = { key: 'a', a: 'x', b: 'y' } as never;

describe.skipIf(!existsSync(FULL))('a records file that cannot be written', () => {
  it('RecordWriter names the file and the reason', () => {
    const path = join(root, 'full.jsonl');
    symlinkSync(FULL, path);
    const writer = new RecordWriter(path);
    expect(() => writer.append(record)).toThrow(`cannot write ${path}: ENOSPC: no space left on device, write`);
    expect(() => writer.close()).not.toThrow();
  });

  it('runTournament fails with that one error, and writes no report', async () => {
    const out = join(root, 'run');
    mkdirSync(out);
    symlinkSync(FULL, join(out, 'episodes.jsonl'));
    const run = runTournament({ settings: { teams: ['heuristic', 'random'], episodes: 4, seed: 1 }, platform: nodeTestPlatform(), out, workers: 2, resume: true });
    await expect(run).rejects.toThrow(new Error(`cannot write ${join(out, 'episodes.jsonl')}: ENOSPC: no space left on device, write`));
    expect(readdirSync(out).sort()).toEqual(['episodes.jsonl', 'manifest.json']);
  });
});

describe('whole files', () => {
  it('a file that cannot be written names it and leaves nothing behind', () => {
    const missing = join(root, 'no-such-dir', 'manifest.json');
    expect(() => writeWholeFile(missing, '{}')).toThrow(new RegExp(`^cannot write ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ENOENT`));
    const dirPath = join(root, 'a-directory');
    mkdirSync(join(dirPath, 'inside'), { recursive: true });
    expect(() => writeWholeFile(dirPath, 'text')).toThrow(/^cannot write .*a-directory: /);
    expect(existsSync(`${dirPath}.tmp`)).toBe(false);
  });
});

describe('--resume with another team list', () => {
  it('says the teams changed, not that a model did', async () => {
    const out = join(root, 'resume');
    await runTournament({ settings: { teams: ['heuristic', 'random'], episodes: 1, seed: 1 }, platform: nodeTestPlatform(), out, workers: 1, resume: false });
    const grown = runTournament({ settings: { teams: ['heuristic', 'random', 'bt'], episodes: 1, seed: 1 }, platform: nodeTestPlatform(), out, workers: 1, resume: true });
    await expect(grown).rejects.toThrow(
      'cannot resume: this tournament was started with --teams heuristic,random (now heuristic,random,bt). Use the original settings, or a new --out directory.',
    );
  });
});
