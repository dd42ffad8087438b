/**
 * Counts users type are bounded, refused before any work with a message that says what
 * each option takes (run as users run the commands).
 */
import { describe, it } from 'vitest';
import { runCommand } from './command';

describe.concurrent('bounded options', () => {
  it("npm run tournament -- --workers 100000 exits 2 before starting a thread", async ({ expect }) => {
    const r = await runCommand('tournament.ts', ['--teams', 'heuristic,random', '--episodes', '1', '--out', '/nonexistent/never-written', '--workers', '100000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: --workers must be an integer from 1 to 64, got '100000'\n");
  });

  it('npm run tournament -- --episodes 0 and --llm-concurrency 100000 say their ranges', async ({ expect }) => {
    const base = ['--teams', 'heuristic,random', '--out', '/nonexistent/never-written'];
    expect((await runCommand('tournament.ts', [...base, '--episodes', '0'])).stderr).toBe("error: --episodes must be an integer from 1 to 100000, got '0'\n");
    const r = await runCommand('tournament.ts', [...base, '--episodes', '1', '--llm-concurrency', '100000']);
    expect(r.stderr).toBe("error: --llm-concurrency must be an integer from 1 to 256, got '100000'\n");
  });

  it('npm run match -- --seed -5 says what --seed takes, not "argument is ambiguous"', async ({ expect }) => {
    const r = await runCommand('match.ts', ['--blue', 'heuristic', '--red', 'random', '--seed', '-5']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: --seed must be an integer from 0 to 4294967295, got '-5'\n");
  });

  it('npm run match -- --seed 0x10 is refused, not read as 16', async ({ expect }) => {
    const r = await runCommand('match.ts', ['--blue', 'heuristic', '--red', 'random', '--seed', '0x10']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: --seed must be an integer from 0 to 4294967295, got '0x10'\n");
    expect(r.stdout).toBe('');
  });

  it('npm run train -- --envs 100000 exits 2 naming its range', async ({ expect }) => {
    const r = await runCommand('train.ts', ['--skill', 'retreat', '--envs', '100000', '--runs', '/nonexistent/runs', '--out', '/nonexistent/models']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: --envs must be an integer from 1 to 1024, got '100000'\n");
  });
});
