/**
 * The Python package (python/hillmind) against this checkout's simulation: its pytest suite
 * (PettingZoo's API and seed tests for both levels, the same matches as `npm run match`, the
 * vector form, dead and silent children). It needs the package's environment, which .ci/run
 * makes (`python3 -m venv .venv && .venv/bin/pip install -e 'python[test]'`); in CI it fails
 * without it, elsewhere it is skipped, saying how to make it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const PYTHON = '.venv/bin/python';
const inCi = /^(1|true)$/i.test(process.env.CI ?? '');
const ready = existsSync(PYTHON) && spawnSync(PYTHON, ['-c', 'import hillmind, pettingzoo, pytest'], { encoding: 'utf8' }).status === 0;
if (!ready && !inCi) console.warn("python package tests skipped: python3 -m venv .venv && .venv/bin/pip install -e 'python[test]'");
const suite = ready || inCi ? describe : describe.skip;

suite('the Python package', () => {
  it('passes its pytest suite', () => {
    expect(ready, `${PYTHON} with the hillmind package and pytest (.ci/run installs them)`).toBe(true);
    const run = spawnSync(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'python/tests'], { encoding: 'utf8', timeout: 600_000 });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/\d+ passed/);
    expect(run.stdout).not.toMatch(/failed|error/i);
  }, 660_000);
});
