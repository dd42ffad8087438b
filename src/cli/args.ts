/** Shared handling for the command-line entry points: clear errors and exit codes. */
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** An error in what the user typed: printed without a stack, exit code 2. */
export class UsageError extends Error {}

/** `--help` or `-h` was given: runCli prints the usage on stdout and exits 0. */
export class HelpRequested extends Error {
  constructor(readonly usage: string) {
    super('help requested');
  }
}

/** Every command's options, with --help and -h, which answer the usage instead of running. */
export function parseCommandLine<T extends ParseArgsConfig['options']>(options: T, usage: string, argv = process.argv.slice(2)) {
  const withHelp: NonNullable<ParseArgsConfig['options']> = { ...options, help: { type: 'boolean', short: 'h' } };
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: joinNegativeValues(argv, withHelp), options: withHelp as T, strict: true, allowPositionals: true });
  } catch (err) {
    throw new UsageError(`${optionErrorText(err as Error & { code?: string }, Object.keys(withHelp))}\n\n${usage}`);
  }
  if ((parsed.values as Record<string, unknown>).help) throw new HelpRequested(usage);
  return parsed;
}

/**
 * What was wrong with the options, in one sentence. Node's own text for an unknown option
 * ends in a half-quoted hint about positionals ('-- "--sed'); ours names the option and,
 * where one is a typo away, the option meant.
 */
function optionErrorText(err: Error & { code?: string }, known: readonly string[]): string {
  const unknown = err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /^Unknown option '([^']+)'/.exec(err.message)?.[1] : undefined;
  if (unknown === undefined) return err.message;
  const name = unknown.replace(/^-+/, '');
  const near = known.filter((option) => editDistance(option, name) <= Math.min(2, Math.floor(option.length / 3)));
  const hint = near.length > 0 ? ` (did you mean ${near.map((option) => `--${option}`).join(' or ')}?)` : '';
  return `Unknown option '${unknown}'${hint}; the options are listed below.`;
}

/** Levenshtein distance: insertions, deletions and substitutions turning `a` into `b`. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/**
 * `--seed -5` as `--seed=-5`: parseArgs takes a value starting with '-' for another option
 * ("argument is ambiguous"), so a negative number reaches the option's own check, whose
 * message says what it takes.
 */
function joinNegativeValues(argv: readonly string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    if (arg.startsWith('--') && options[arg.slice(2)]?.type === 'string' && next !== undefined && /^-\.?\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** The integers an option takes, both ends included. */
export interface IntegerRange {
  readonly min: number;
  readonly max: number;
}

/** Seeds: 32-bit, as worlds and reproduce commands take them. */
export const SEED_RANGE: IntegerRange = { min: 0, max: 0xffffffff };
/** Worker threads: a thread per core of the largest machines we run on, not thousands. */
export const WORKERS_RANGE: IntegerRange = { min: 1, max: 64 };
/** Episodes per matchup (or per comparison). */
export const EPISODES_RANGE: IntegerRange = { min: 1, max: 100_000 };
/** Episodes or requests in flight at once. */
export const CONCURRENCY_RANGE: IntegerRange = { min: 1, max: 256 };

/**
 * An integer option in `range` (a number: from 0 to it), or a UsageError naming the option,
 * the range and what was typed. Only plain decimal digits count: '0x10', '1e3', '+5' and
 * '-5' are refused, never read as another number.
 */
export function integerOption(name: string, value: string | undefined, fallback: number, range: number | IntegerRange = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  const { min, max } = typeof range === 'number' ? { min: 0, max: range } : range;
  const text = value.trim();
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got '${value}'`);
  }
  return n;
}

/**
 * A folder option a command writes into (made if missing): `path` unchanged, or a
 * UsageError naming the option and the first part of the path that is a file, where a
 * folder was expected. Checked before any work starts, so a long run cannot end on it.
 */
export function folderOption(name: string, path: string): string {
  for (let at = resolve(path); ; at = dirname(at)) {
    const stat = statOrAbsent(at);
    if (stat && !stat.isDirectory()) {
      const where = at === resolve(path) ? 'it is a file' : `${at} is a file`;
      throw new UsageError(`--${name} ${path}: expected a folder, or a path where one can be made, but ${where}: choose another path, or move the file away`);
    }
    if (stat || dirname(at) === at) return path;
  }
}

/** The entry at `path`, or undefined where there is none (a file above it reads as none here: its parent is checked next). */
function statOrAbsent(path: string): ReturnType<typeof statSync> {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** Run a command's main; print errors plainly and exit non-zero. */
export function runCli(main: () => Promise<number | void>): void {
  main().then(
    (code) => process.exit(code ?? 0),
    (err: unknown) => {
      if (err instanceof HelpRequested) {
        process.stdout.write(`${err.usage}\n`);
        process.exit(0);
      }
      const usage = err instanceof UsageError;
      process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
      if (!usage && process.env.HILLMIND_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
      process.exit(usage ? 2 : 1);
    },
  );
}
