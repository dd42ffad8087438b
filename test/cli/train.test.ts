/**
 * npm run train (src/cli/train.ts): the usage, and options checked before any file is
 * read or written (training itself: test/train/trainCli.test.ts).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { saveCheckpoint } from '../../src/train/artifacts';
import { TINY, tempDir, tinyState } from '../train/fixtures';
import { describeUsage, runCommand } from './command';

describeUsage('train.ts', 'usage: npm run train -- --skill <navigate|combat|secure|retreat|flat>');

const tmp = tempDir('train-options');
afterAll(() => tmp.remove());

describe.concurrent('npm run train: a bad --seed', () => {
  const runs = join(tmp.path, 'runs');
  const runDir = join(runs, 'retreat');
  const curve = join(runDir, 'curve.jsonl');
  let curveText: string;

  // A run killed after its checkpoint at 64 steps: the curve holds an update past it (what --resume would cut).
  beforeAll(() => {
    mkdirSync(runDir, { recursive: true });
    saveCheckpoint(runDir, { name: 'retreat', steps: 64, wallSeconds: 1, config: TINY, state: tinyState() });
    curveText = ['{"update":1,"steps":64}', '{"update":2,"steps":128}', ''].join('\n');
    writeFileSync(curve, curveText);
  });

  // '--seed=-1': written apart, node's parser would take -1 for an option.
  for (const seed of ['abc', '-1', '1.5', '4294967296']) {
    it(`--seed=${seed} exits 2 naming --seed and what it takes, before writing anything`, async ({ expect }) => {
      const fresh = join(tmp.path, `fresh-${seed}`);
      const r = await runCommand('train.ts', ['--skill', 'retreat', `--seed=${seed}`, '--runs', join(fresh, 'runs'), '--out', join(fresh, 'models')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`error: --seed must be an integer from 0 to 4294967295, got '${seed}'`);
      expect(existsSync(fresh)).toBe(false);
    });
  }

  it('with --resume, a bad --seed leaves the run (its curve) as it was', async ({ expect }) => {
    const r = await runCommand('train.ts', ['--skill', 'retreat', '--resume', '--seed', 'x', '--runs', runs, '--out', join(tmp.path, 'models')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: --seed must be an integer from 0 to 4294967295, got 'x'");
    expect(readFileSync(curve, 'utf8')).toBe(curveText);
  });

  it('with --resume, any --seed is refused (the run keeps its own) and the curve is untouched', async ({ expect }) => {
    const r = await runCommand('train.ts', ['--skill', 'retreat', '--resume', '--seed', '3', '--runs', runs, '--out', join(tmp.path, 'models')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--envs, --seed and --workers cannot change on --resume');
    expect(readFileSync(curve, 'utf8')).toBe(curveText);
  });
});

describe.concurrent('npm run train: --out or --runs where a file is', () => {
  // --steps 1: were the paths checked only at the end, the run would still fail, after training.
  it('--out naming an existing file exits 2 naming it, before any training (no run files written)', async ({ expect }) => {
    const dir = join(tmp.path, 'out-is-a-file');
    const file = join(dir, 'models.onnx');
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, 'not a folder');
    const r = await runCommand('train.ts', ['--skill', 'retreat', '--steps', '1', '--envs', '1', '--workers', '1', '--runs', join(dir, 'runs'), '--out', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: --out ${file}: expected a folder, or a path where one can be made, but it is a file`);
    expect(existsSync(join(dir, 'runs'))).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('not a folder');
  });

  it('--runs under an existing file exits 2 naming the file, before any training', async ({ expect }) => {
    const dir = join(tmp.path, 'runs-under-a-file');
    const file = join(dir, 'runs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, 'not a folder');
    const r = await runCommand('train.ts', ['--skill', 'retreat', '--steps', '1', '--envs', '1', '--workers', '1', '--runs', file, '--out', join(dir, 'models')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: --runs ${join(file, 'retreat')}: expected a folder, or a path where one can be made, but ${file} is a file`);
    expect(existsSync(join(dir, 'models'))).toBe(false);
  });
});
