/** Shared handling for the command-line entry points: clear errors and exit codes. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** An error in what the user typed: printed without a stack, exit code 2. */
export class UsageError extends Error {}

export function parseCommandLine<T extends ParseArgsConfig['options']>(options: T, usage: string, argv = process.argv.slice(2)) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${usage}`);
  }
}

/** A non-negative integer option (at most `max`), or a UsageError naming it. */
export function integerOption(name: string, value: string | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  const n = value.trim() === '' ? NaN : Number(value);
  if (!Number.isInteger(n) || n < 0 || n > max) {
    throw new UsageError(`--${name} must be an integer from 0 to ${max}, got '${value}'`);
  }
  return n;
}

/** Run a command's main; print errors plainly and exit non-zero. */
export function runCli(main: () => Promise<number | void>): void {
  main().then(
    (code) => process.exit(code ?? 0),
    (err: unknown) => {
      const usage = err instanceof UsageError;
      process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
      if (!usage && process.env.HILLMIND_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
      process.exit(usage ? 2 : 1);
    },
  );
}
