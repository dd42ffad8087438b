/**
 * Running a command as users do (`node --import tsx src/cli/<name>.ts ...`, from the project
 * root), and the checks every command owes: --help and -h print the usage on stdout and
 * exit 0; an unknown option exits 2 and names it. Each spawn costs about a second, so few.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run src/cli/<script> with `args`; the timeout only stops a hung process. */
export function runCommand(script: string, args: readonly string[], env: Record<string, string> = {}): Promise<CommandResult> {
  return new Promise((done) => {
    const options = { cwd: ROOT, timeout: 60_000, env: { ...process.env, HILLMIND_DEBUG: '', ...env } };
    execFile(process.execPath, ['--import', 'tsx', `src/cli/${script}`, ...args], options, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

/** The usage checks for one command; `usage` is how its usage text starts. */
export function describeUsage(script: string, usage: string): void {
  describe.concurrent(`${script}: usage`, () => {
    for (const flag of ['--help', '-h']) {
      it(`${flag} prints the usage on stdout and exits 0`, async ({ expect }) => {
        const r = await runCommand(script, [flag]);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        expect(r.stdout.startsWith(usage)).toBe(true);
      });
    }

    it('an unknown option exits 2 and names it', async ({ expect }) => {
      const r = await runCommand(script, ['--no-such-option']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error: .*'--no-such-option'/);
      expect(r.stdout).toBe('');
    });
  });
}

/** What a help text says of an option (or a setting) and the lines it continues on: those below it, indented deeper. */
interface HelpEntry {
  readonly from: number;
  readonly to: number;
  readonly text: string;
}

function helpEntry(lines: readonly string[], key: string): HelpEntry | null {
  const starts = new RegExp(`^\\s*${escapeRegExp(key)}(?![\\w-])`);
  const from = lines.findIndex((line) => starts.test(line));
  if (from < 0) return null;
  const indent = (line: string) => line.length - line.trimStart().length;
  let to = from + 1;
  while (to < lines.length && indent(lines[to]!) > indent(lines[from]!)) to++;
  return { from, to, text: lines.slice(from, to).join('\n') };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A number stated as a default: "default 200", "default: 2 per thread", "default 0.02". */
const STATED_NUMBER = /\bdefault:? (\d+(?:\.\d+)?)(?![\w.])/g;

/**
 * The defaults a command's --help states, checked against `defaults`: for each option (or
 * setting) the help's entry that starts with its key, and the values the command applies
 * there (the same constants its parsing reads). Each entry names its default and every
 * value; and no entry states a number as a default that is not listed here, so a default
 * typed into the text by hand fails.
 */
export function describeStatedDefaults(script: string, defaults: Readonly<Record<string, readonly (string | number)[]>>): void {
  it(`${script}: --help states the defaults the command applies`, async ({ expect }) => {
    const r = await runCommand(script, ['--help']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const entries = new Map<string, HelpEntry>();
    for (const [key, values] of Object.entries(defaults)) {
      const entry = helpEntry(lines, key);
      expect(entry, `${script} --help has no entry starting with ${key}`).not.toBeNull();
      entries.set(key, entry!);
      expect(entry!.text, `${key}'s entry says what its default is`).toMatch(/\bdefault\b/);
      for (const value of values) expect(entry!.text, `${key}'s entry states ${value}`).toMatch(new RegExp(`(?<![\\w.])${escapeRegExp(String(value))}(?![\\w]|\\.\\d)`));
    }
    lines.forEach((line, at) => {
      for (const [, number] of line.matchAll(STATED_NUMBER)) {
        const key = [...entries].find(([, e]) => at >= e.from && at < e.to)?.[0];
        const applied = key === undefined ? [] : defaults[key]!.map(String);
        expect(applied, `${script} --help states default ${number} (line '${line.trim()}'), which the test does not hold to a constant the command applies`).toContain(number);
      }
    });
  });
}
