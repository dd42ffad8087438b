/**
 * The shared option handling (src/cli/args.ts): integers typed plainly and within their
 * bounds, each refusal naming the option, its range and what was typed; negative numbers
 * reach that check instead of node's "argument is ambiguous".
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONCURRENCY_RANGE, EPISODES_RANGE, SEED_RANGE, UsageError, WORKERS_RANGE, folderOption, integerOption, parseCommandLine } from '../../src/cli/args';

const OPTIONS = { seed: { type: 'string' }, workers: { type: 'string' }, json: { type: 'boolean' } } as const;

describe('integerOption', () => {
  it('takes plain decimal integers within the range, and the fallback when absent', () => {
    expect(integerOption('seed', '0', 1, SEED_RANGE)).toBe(0);
    expect(integerOption('seed', '4294967295', 1, SEED_RANGE)).toBe(4294967295);
    expect(integerOption('seed', ' 42 ', 1, SEED_RANGE)).toBe(42);
    expect(integerOption('seed', undefined, 7, SEED_RANGE)).toBe(7);
    expect(integerOption('workers', '64', 1, WORKERS_RANGE)).toBe(64);
  });

  it.each(['0x10', '1e3', '+5', '-5', '1.5', '', ' ', 'abc', '0b11', '4294967296', '99999999999999999999'])("refuses --seed '%s', saying what it takes", (typed) => {
    expect(() => integerOption('seed', typed, 1, SEED_RANGE)).toThrow(UsageError);
    expect(() => integerOption('seed', typed, 1, SEED_RANGE)).toThrow(`--seed must be an integer from 0 to 4294967295, got '${typed}'`);
  });

  it('bounds every count a user types', () => {
    expect(() => integerOption('workers', '100000', 1, WORKERS_RANGE)).toThrow("--workers must be an integer from 1 to 64, got '100000'");
    expect(() => integerOption('workers', '0', 1, WORKERS_RANGE)).toThrow("--workers must be an integer from 1 to 64, got '0'");
    expect(() => integerOption('episodes', '0', 1, EPISODES_RANGE)).toThrow("--episodes must be an integer from 1 to 100000, got '0'");
    expect(() => integerOption('episodes', '1000001', 1, EPISODES_RANGE)).toThrow(/from 1 to 100000/);
    expect(() => integerOption('llm-concurrency', '100000', 1, CONCURRENCY_RANGE)).toThrow("--llm-concurrency must be an integer from 1 to 256, got '100000'");
  });
});

describe('parseCommandLine', () => {
  it('names an unknown option with balanced quotes, and the option a typo away', () => {
    const message = (argv: string[]) => {
      try {
        parseCommandLine(OPTIONS, 'usage: x', argv);
      } catch (err) {
        expect(err).toBeInstanceOf(UsageError);
        return (err as Error).message;
      }
      throw new Error('no error');
    };
    expect(message(['--sed', '3'])).toBe("Unknown option '--sed' (did you mean --seed?); the options are listed below.\n\nusage: x");
    expect(message(['--bogus'])).toBe("Unknown option '--bogus'; the options are listed below.\n\nusage: x");
    for (const argv of [['--sed'], ['--bogus'], ['-x']]) expect(message(argv).split("'").length % 2).toBe(1); // every quote closed
  });

  it("passes a negative number on to the option's check instead of calling it ambiguous", () => {
    const { values } = parseCommandLine(OPTIONS, 'usage', ['--seed', '-5', '--json']);
    expect(values).toEqual({ seed: '-5', json: true });
    expect(() => integerOption('seed', values.seed, 1, SEED_RANGE)).toThrow("--seed must be an integer from 0 to 4294967295, got '-5'");
    expect(parseCommandLine(OPTIONS, 'usage', ['--workers', '-.5']).values.workers).toBe('-.5');
  });

  it('still reads an option after a string option as an option, and stops at --', () => {
    expect(() => parseCommandLine(OPTIONS, 'usage', ['--seed', '--json'])).toThrow(/ambiguous|argument missing/);
    expect(parseCommandLine(OPTIONS, 'usage', ['--', '--seed', '-5']).positionals).toEqual(['--seed', '-5']);
  });
});

describe('folderOption', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hillmind-folder-option-'));
  const file = join(dir, 'a-file');
  writeFileSync(file, '');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes a folder, or a path where one can be made', () => {
    expect(folderOption('out', dir)).toBe(dir);
    expect(folderOption('out', join(dir, 'new', 'deeper'))).toBe(join(dir, 'new', 'deeper'));
  });

  it('refuses a file, or a path under one, naming the option and the file', () => {
    expect(() => folderOption('out', file)).toThrow(UsageError);
    expect(() => folderOption('out', file)).toThrow(`--out ${file}: expected a folder, or a path where one can be made, but it is a file`);
    expect(() => folderOption('runs', join(file, 'retreat'))).toThrow(`but ${file} is a file`);
  });
});
