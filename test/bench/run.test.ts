import { describe, expect, it } from 'vitest';
import { SECTIONS, formatRow, runBench } from '../../src/bench/run';
import type { NodePlatform } from '../../src/teams/nodePlatform';

describe('npm run bench, called without the command line', () => {
  it('prints each figure beside its target and the ratio to it, higher or lower being better', () => {
    expect(formatRow({ name: 'steps', value: 2000, unit: 'steps/s', target: 1000 })).toMatch(/^steps\s+2,000 steps\/s\s+target >= 1,000 {2}ratio 2\.00x ok$/);
    expect(formatRow({ name: 'frame', value: 4, unit: 'ms', target: 2, lowerIsBetter: true })).toMatch(/4\.000 ms\s+target <= 2 {2}ratio 0\.50x BELOW TARGET$/);
    expect(formatRow({ name: 'tokens', value: 12.5, unit: 'tokens' }).trimEnd()).toMatch(/^tokens\s+12\.500 tokens$/);
  });

  it('runs only the sections asked for, through the print it is given', async () => {
    const lines: string[] = [];
    // No section asked for: nothing is measured, so the platform is never used.
    await runBench({ seconds: 1, only: [], modelDir: 'models', redisServer: null }, {} as NodePlatform, (line) => lines.push(line));
    expect(lines).toEqual([`Hillmind benchmarks (node ${process.version}, 1 s per figure)`]);
    expect(SECTIONS).toContain('llm-proxy');
  });
});
