/**
 * npm run evaluate (src/cli/evaluate.ts): its usage names every option, and a bad count or
 * seed exits 2 before any game is played (the evaluation itself is too slow for a test; its
 * parts are tested in test/train/evaluate.test.ts).
 */
import { describe, it } from 'vitest';
import { EVALUATE } from '../../src/cli/defaults';
import { runCommand } from './command';

describe.concurrent('npm run evaluate: options', () => {
  it('--help names --episodes, --seed, --workers and --write', async ({ expect }) => {
    const r = await runCommand('evaluate.ts', ['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith(`usage: npm run evaluate -- [--episodes ${EVALUATE.episodes}] [--seed <n>] [--workers ${EVALUATE.workers}] [--write]\n`)).toBe(true);
    for (const option of ['--episodes', '--seed', '--workers', '--write']) expect(r.stdout).toMatch(new RegExp(`^ {2}${option} `, 'm'));
  });

  const refused: [string[], string][] = [
    [['--episodes', '0'], "error: --episodes must be an integer from 1 to 100000, got '0'\n"],
    [['--seed', '-1'], "error: --seed must be an integer from 0 to 4294967295, got '-1'\n"],
    [['--workers', '100'], "error: --workers must be an integer from 1 to 64, got '100'\n"],
  ];
  for (const [args, message] of refused) {
    it(`${args.join(' ')} exits 2 with what the option takes, before playing`, async ({ expect }) => {
      const r = await runCommand('evaluate.ts', [...args, '--write']);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(message);
      expect(r.stdout).toBe('');
    });
  }
});
