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
