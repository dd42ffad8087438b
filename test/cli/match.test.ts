/**
 * The match command line, run as users run it (each spawn costs about a second, so few).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';
import { REPLAY_VERSION, parseReplay } from '../../src/match';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'hillmind-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(...args: string[]): Promise<Result> {
  return new Promise((done) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/match.ts', ...args], { cwd: ROOT, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

describe('npm run match', () => {
  it('a normal run prints the winner line and exits 0', async ({ expect }) => {
    const r = await cli('--blue', 'bt-scripted', '--red', 'heuristic', '--seed', '3');
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^bt-scripted \(blue\) vs heuristic \(red\), seed 3: (blue \(bt-scripted\) wins|red \(heuristic\) wins|draw) after \d+\.\d\d s$/m);
    expect(r.stdout).toMatch(/state hash [0-9a-f]{16}/);
  });

  it('--json prints the summary as JSON; --replay writes a replay that --verify accepts', async ({ expect }) => {
    const file = join(dir, 'match.json');
    const r = await cli('--blue', 'random', '--red', 'bt-scripted', '--seed', '5', '--json', '--replay', file);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as { winner: string; agents: unknown[]; hash: string; seed: number };
    expect(['blue', 'red', 'draw']).toContain(summary.winner);
    expect(summary.agents).toHaveLength(4);
    expect(summary.seed).toBe(5);
    expect(JSON.parse(readFileSync(file, 'utf8')).finalHash).toBe(summary.hash);

    const v = await cli('--verify', file);
    expect(v.code).toBe(0);
    expect(v.stdout).toContain('replay verified');
    expect(v.stdout).toContain(summary.hash);
  });

  it('--replay into a folder that does not exist yet makes the folder', async ({ expect }) => {
    const file = join(dir, 'not', 'yet', 'r.json');
    const r = await cli('--blue', 'random', '--red', 'bt-scripted', '--seed', '7', '--replay', file);
    expect(r.code).toBe(0);
    expect(parseReplay(readFileSync(file, 'utf8')).seed).toBe(7);
  });

  it('an unknown team exits 2 with "unknown team id" on stderr', async ({ expect }) => {
    const r = await cli('--blue', 'nope', '--red', 'heuristic');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown team id 'nope'/);
    expect(r.stdout).toBe('');
  });

  it('a malformed replay exits 1 with a clear message', async ({ expect }) => {
    const file = join(dir, 'malformed.json');
    writeFileSync(file, JSON.stringify({ format: 'hillmind-replay', version: REPLAY_VERSION, seed: 'seven' }));
    const r = await cli('--verify', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: .*malformed\.json is malformed at \S+/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('--verify of a replay whose outcome or decisions were rewritten exits 1, listing each claim that fails', async ({ expect }) => {
    const file = join(dir, 'honest.json');
    expect((await cli('--blue', 'bt-scripted', '--red', 'random', '--seed', '4', '--replay', file)).code).toBe(0);
    const replay = JSON.parse(readFileSync(file, 'utf8')) as { outcome: string; decisions: { team: number; tick: number; skills: string[] }[] };
    const other = replay.outcome === 'blue' ? 'red' : 'blue';
    replay.outcome = other;
    const d = replay.decisions.find((x) => x.team === 1 && x.tick > 0)!;
    d.skills = d.skills.map((s) => (s === 'retreat' ? 'secure' : 'retreat'));
    const forged = join(dir, 'forged.json');
    writeFileSync(forged, JSON.stringify(replay));
    const r = await cli('--verify', forged);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^replay MISMATCH: \d claims do not hold\n/);
    expect(r.stdout).toContain(`- outcome: the file says ${other}; the re-simulation gives `);
    expect(r.stdout).toMatch(/- red 'random' with scripted skills: agent \d's action at tick \d+/);
    expect(r.stdout).toContain('red (random): its actions do not follow its decisions');
  });

  it('--verify of a replay asking for 1e9 seconds is refused before simulating', async ({ expect }) => {
    const file = join(dir, 'honest.json');
    const long = join(dir, 'long.json');
    const replay = JSON.parse(readFileSync(file, 'utf8')) as { config: { episodeSeconds: number }; ticks: number };
    replay.config.episodeSeconds = 1e9;
    replay.ticks = 5e10;
    writeFileSync(long, JSON.stringify(replay));
    const r = await cli('--verify', long);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: ${long} asks for more than the game plays: episodeSeconds is 1000000000 s; the game allows at most 600 s\n`);
  });

  it('a wrong-version replay exits 1 naming the version', async ({ expect }) => {
    const file = join(dir, 'v9.json');
    writeFileSync(file, JSON.stringify({ format: 'hillmind-replay', version: 9 }));
    const r = await cli('--verify', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`replay version 9; this build reads version ${REPLAY_VERSION}$`, 'm'));
  });
});
