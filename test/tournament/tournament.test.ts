import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMatch } from '../../src/match';
import { LOCK_FILE, type LockEnvironment, TournamentLocked, lockTournament } from '../../src/tournament/lock';
import { planEpisodes } from '../../src/tournament/plan';
import { readRecords } from '../../src/tournament/records';
import { reportText } from '../../src/tournament/report';
import { runTournament } from '../../src/tournament/run';
import { summarizeMatchup } from '../../src/tournament/summary';
import { TEST_PLATFORM, nodeTestPlatform } from '../helpers/platform';
import { tempDirs } from '../helpers/tempDirs';

const freshDir = tempDirs('tournament');

const settings = { teams: ['bt-scripted', 'heuristic', 'random'], episodes: 6, seed: 3 };

describe('tournament plan', () => {
  it('pairs every team with every other, swaps sides every other episode, seeds each episode uniquely', () => {
    const plan = planEpisodes(settings);
    expect(plan).toHaveLength(3 * 6);
    expect(new Set(plan.map((e) => e.key)).size).toBe(plan.length);
    expect(new Set(plan.map((e) => e.seed)).size).toBe(plan.length);
    for (const e of plan) {
      expect(e.blue).toBe(e.index % 2 === 0 ? e.a : e.b);
      expect(e.red).toBe(e.index % 2 === 0 ? e.b : e.a);
    }
    expect(planEpisodes(settings)).toEqual(plan);
    expect(planEpisodes({ ...settings, seed: 4 })[0]!.seed).not.toBe(plan[0]!.seed);
  });
});

describe('runTournament', () => {
  it('records every episode once, each one replayable by npm run match with its seed', async () => {
    const out = freshDir();
    const result = await runTournament({ settings, platform: nodeTestPlatform(), out, workers: 2, resume: false });
    const records = readRecords(join(out, 'episodes.jsonl'));
    expect(records).toHaveLength(18);
    expect(new Set(records.map((r) => r.key)).size).toBe(18);
    expect(result.summary.matchups.map((m) => m.episodes)).toEqual([6, 6, 6]);
    const r = records[0]!;
    const again = await runMatch({ blue: r.blue, red: r.red, seed: r.seed }, { platform: TEST_PLATFORM, record: false });
    expect(again.summary().hash).toBe(r.hash);
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toContain('| bt-scripted vs heuristic | 6 |');
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('<img src="outcomes.svg"');
    // The files beside the report: plots with their data and specs, tables, and every episode as a row.
    for (const name of ['outcomes', 'ratings', 'heatmaps']) for (const ext of ['svg', 'csv', 'vl.json']) expect(existsSync(join(out, `${name}.${ext}`))).toBe(true);
    for (const name of ['matchups', 'teams', 'behaviour', 'divergence']) expect(existsSync(join(out, `${name}.csv`))).toBe(true);
    expect(readFileSync(join(out, 'episodes.csv'), 'utf8').trim().split('\r\n')).toHaveLength(1 + 18);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.settings).toEqual(settings);
    expect(manifest.fingerprints.config).toMatch(/^[0-9a-f]{16}$/);
  });

  it('refuses unknown or unavailable teams before playing anything', async () => {
    const out = freshDir();
    await expect(runTournament({ settings: { ...settings, teams: ['heuristic', 'nope'] }, platform: nodeTestPlatform(), out, workers: 1, resume: false })).rejects.toThrow(/unknown team id 'nope'/);
    await expect(runTournament({ settings: { ...settings, teams: ['heuristic', 'human'] }, platform: nodeTestPlatform(), out, workers: 1, resume: false })).rejects.toThrow(/not available/);
    expect(existsSync(join(out, 'episodes.jsonl'))).toBe(false);
  });

  it('resumes after a torn last line without losing or duplicating episodes, and refuses changed settings', async () => {
    const out = freshDir();
    await runTournament({ settings: { ...settings, episodes: 2 }, platform: nodeTestPlatform(), out: join(out, 'x'), workers: 1, resume: false }).catch(() => {});
    const first = await runTournament({ settings, platform: nodeTestPlatform(), out, workers: 1, resume: false });
    const path = join(out, 'episodes.jsonl');
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    // Keep 7 whole records and half of the 8th, as a killed run would leave them.
    writeFileSync(path, `${lines.slice(0, 7).join('\n')}\n${lines[7]!.slice(0, 40)}`);
    await expect(runTournament({ settings, platform: nodeTestPlatform(), out, workers: 1, resume: false })).rejects.toThrow(/--resume/);
    await expect(runTournament({ settings: { ...settings, episodes: 8 }, platform: nodeTestPlatform(), out, workers: 1, resume: true })).rejects.toThrow(/--episodes 6 \(now 8\)/);
    // The records found are reported once, before play, apart from the episodes played.
    const reports: string[] = [];
    const resumed = await runTournament({
      settings,
      platform: nodeTestPlatform(),
      out,
      workers: 2,
      resume: true,
      onResumed: (done, total) => reports.push(`found ${done}/${total}`),
      onProgress: (done, total) => reports.push(`${done}/${total}`),
    });
    expect(resumed.skipped).toBe(7);
    expect(reports).toEqual(['found 7/18', ...Array.from({ length: 11 }, (_, i) => `${8 + i}/18`)]);
    expect(resumed.played).toBe(11);
    const records = readRecords(path);
    expect(records.map((r) => r.key).sort()).toEqual(first.records.map((r) => r.key).sort());
    const byKey = new Map(first.records.map((r) => [r.key, r.hash]));
    for (const r of records) expect(r.hash).toBe(byKey.get(r.key));
  });

  it('a kill -9 of the command and --resume end with every planned episode exactly once; while it ran, a second run was refused naming it', async () => {
    const out = freshDir();
    const args = ['--import', 'tsx', 'src/cli/tournament.ts', '--teams', 'bt-scripted,heuristic,random', '--episodes', '60', '--out', out, '--workers', '2'];
    const child = spawn(process.execPath, args, { cwd: process.cwd(), stdio: 'ignore' });
    const path = join(out, 'episodes.jsonl');
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        const n = existsSync(path) ? readFileSync(path, 'utf8').split('\n').length : 0;
        if (n > 20 || child.exitCode !== null) {
          clearInterval(poll);
          // Held still (alive, holding the folder) while a second run tries the same --out.
          child.kill('SIGSTOP');
          resolve();
        }
      }, 50);
    });
    expect(child.exitCode).toBe(null);
    const second = runTournament({ settings: { teams: ['bt-scripted', 'heuristic', 'random'], episodes: 60, seed: 1 }, platform: nodeTestPlatform(), out, workers: 1, resume: true });
    await expect(second).rejects.toThrow(new RegExp(`being run by process ${child.pid} on ${hostname()}, started \\d{4}-`));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const before = readRecords(path).length;
    expect(before).toBeLessThan(180);
    const events: string[] = [];
    const resumed = await runTournament({ settings: { teams: ['bt-scripted', 'heuristic', 'random'], episodes: 60, seed: 1 }, platform: nodeTestPlatform(), out, workers: 2, resume: true, onEvent: (m) => events.push(m) });
    // The killed run's lock was stale: taken over, and said so.
    expect(events.join('\n')).toMatch(new RegExp(`left by process ${child.pid} on ${hostname()}, started .*, which no longer runs: took it over`));
    expect(existsSync(join(out, LOCK_FILE))).toBe(false);
    expect(resumed.skipped).toBe(before);
    const keys = readRecords(path).map((r) => r.key);
    expect(keys).toHaveLength(180);
    expect(new Set(keys).size).toBe(180);
  });
});

describe('matchup summary', () => {
  it('counts wins by team whatever the side, with Wilson intervals and the study test', () => {
    const rec = (a: string, b: string, winner: string | null) => ({ a, b, winner, durationSeconds: 10 }) as never;
    const records = [rec('x', 'y', 'x'), rec('x', 'y', 'x'), rec('x', 'y', 'y'), rec('x', 'y', null)];
    const m = summarizeMatchup(records, 'x', 'y');
    expect([m.aWins, m.bWins, m.draws]).toEqual([2, 1, 1]);
    expect(m.aRate.estimate).toBe(0.5);
    expect(m.aRate.lower).toBeLessThan(0.5);
    // 3 decisive games: a z-test's normal approximation does not hold, so neither test is given, and the reason says so.
    expect([m.pDecisive, m.pTwoProportion]).toEqual([null, null]);
    expect(m.heldBack).toBe(
      'no decisive-games test: it needs at least 10 decisive games (5 expected each way), and there are 3; no two-proportion test: it needs 5 wins and 5 other results expected for each team',
    );
    expect(reportText({ matchups: [m], teams: [], ratings: null, ratingsNote: 'none', ratingsSeparation: null, behaviour: { profiles: [], clusters: [], threshold: 0.1, skillDivergence: [], placeDivergence: [] } } as never)).toContain(
      'held back: x vs y: no decisive-games test',
    );
    // From 10 decisive games (and 5 wins expected each side) both are given.
    const many = summarizeMatchup([...Array.from({ length: 7 }, () => rec('x', 'y', 'x')), ...Array.from({ length: 3 }, () => rec('x', 'y', 'y')), ...Array.from({ length: 10 }, () => rec('x', 'y', null))], 'x', 'y');
    expect(many.heldBack).toBeNull();
    expect(many.pDecisive).toBeCloseTo(0.2059, 3); // z = (0.7 - 0.5) / sqrt(0.25 / 10)
  });
});

describe('one tournament folder, one writer', () => {
  const small = { teams: ['bt-scripted', 'heuristic'], episodes: 4, seed: 1 };

  it('records found twice are kept once, counted, and summarised once', async () => {
    const out = freshDir();
    const first = await runTournament({ settings: small, platform: nodeTestPlatform(), out, workers: 1, resume: false });
    const path = join(out, 'episodes.jsonl');
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    // What a second writer on the same folder left: three episodes recorded again.
    appendFileSync(path, `${lines.slice(0, 3).join('\n')}\n`);
    const events: string[] = [];
    const resumed = await runTournament({ settings: small, platform: nodeTestPlatform(), out, workers: 1, resume: true, onEvent: (m) => events.push(m) });
    expect(resumed.duplicatesDropped).toBe(3);
    expect(resumed.records).toHaveLength(4);
    expect(resumed.summary.matchups[0]!.episodes).toBe(4);
    expect(resumed.summary).toEqual(first.summary);
    expect(events.join('\n')).toContain(`${path}: 3 records of episodes already recorded earlier in the file dropped`);
  });

  it('records carry the tournament id and seed; another tournament\'s records are refused on resume', async () => {
    const out = freshDir();
    const first = await runTournament({ settings: small, platform: nodeTestPlatform(), out, workers: 1, resume: false });
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    for (const r of readRecords(join(out, 'episodes.jsonl'))) expect(r).toMatchObject({ tournament: manifest.id, tournamentSeed: 1 });
    expect(first.records.every((r) => r.tournament === manifest.id)).toBe(true);
    // The manifest deleted, the folder resumed under another seed: the seed-1 records are not adopted.
    rmSync(join(out, 'manifest.json'));
    const path = join(out, 'episodes.jsonl');
    await expect(runTournament({ settings: { ...small, seed: 2 }, platform: nodeTestPlatform(), out, workers: 1, resume: true })).rejects.toThrow(
      new RegExp(`${path} holds 4 records that this tournament \\(id [0-9a-f-]+, seed 2\\) did not plan: bt-scripted\\|heuristic\\|0 of tournament ${manifest.id} \\(seed 1\\)`),
    );
    // Nothing was written for the refused run.
    expect(existsSync(join(out, 'manifest.json'))).toBe(false);
    // Records from before they carried an id are checked against the plan's seeds.
    const legacy = readFileSync(path, 'utf8').trim().split('\n').map((line) => {
      const { tournament: _t, tournamentSeed: _s, ...rest } = JSON.parse(line);
      return JSON.stringify(rest);
    });
    writeFileSync(path, `${legacy.join('\n')}\n`);
    await expect(runTournament({ settings: { ...small, seed: 2 }, platform: nodeTestPlatform(), out, workers: 1, resume: true })).rejects.toThrow(/did not plan: bt-scripted\|heuristic\|0 with seed \d+, bt-scripted blue \(planned: seed \d+/);
  });

  it('a damaged manifest is an error naming the file', async () => {
    const out = freshDir();
    await runTournament({ settings: small, platform: nodeTestPlatform(), out, workers: 1, resume: false });
    const path = join(out, 'manifest.json');
    writeFileSync(path, readFileSync(path, 'utf8').slice(0, 50));
    await expect(runTournament({ settings: small, platform: nodeTestPlatform(), out, workers: 1, resume: true })).rejects.toThrow(`${path} is not a readable tournament manifest`);
  });

  it('a lock held by a live process, or by another host, is never taken over; a dead pid\'s is', () => {
    const dir = freshDir();
    const at = (pid: number, host: string, alive: boolean): LockEnvironment => ({
      pid,
      host,
      now: () => new Date('2026-01-02T03:04:05Z'),
      bootId: null,
      probe: () => (alive ? { running: true, start: null } : { running: false }),
    });
    const held = lockTournament(dir, at(100, 'a', true));
    expect(() => lockTournament(dir, at(200, 'a', true))).toThrow(`${join(dir, LOCK_FILE)}: this tournament is being run by process 100 on a, started 2026-01-02T03:04:05.000Z`);
    // From another host its pid means nothing here: refused even if "dead".
    expect(() => lockTournament(dir, at(200, 'b', false))).toThrow(TournamentLocked);
    expect(() => lockTournament(dir, at(200, 'b', false))).toThrow(/cannot be checked from b: if that process is gone, delete/);
    const taken = lockTournament(dir, at(200, 'a', false));
    expect(taken.tookOver).toEqual({ owner: held.owner, why: 'which no longer runs' });
    // The old holder's release leaves the new lock alone.
    held.release();
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(200);
    taken.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    writeFileSync(join(dir, LOCK_FILE), 'garbage');
    expect(() => lockTournament(dir, at(1, 'a', true))).toThrow(`${join(dir, LOCK_FILE)} is not a lock (expected {pid, host, startedAt})`);
  });
});
