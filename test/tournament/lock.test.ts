/**
 * The tournament folder's lock (src/tournament/lock.ts) names its holder by pid, start time
 * and boot id, so a lock whose pid now belongs to someone else (an unrelated process, or this
 * process after a restart in a fresh pid namespace) is stale, while a live holder is refused.
 * These run against this machine's real /proc, as `npm run tournament` does.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCK_FILE, type LockEnvironment, TournamentLocked, lockTournament, probeProcess, tookOverMessage } from '../../src/tournament/lock';
import { tempDir } from '../helpers/tempDirs';

const root = tempDir('lock');
let folders = 0;
const folder = () => {
  const dir = join(root, `run-${folders++}`);
  mkdirSync(dir);
  return dir;
};
/** A lock as a run writes it, naming `pid` on this host (with the fields given). */
const writeLock = (dir: string, fields: Record<string, unknown>) =>
  writeFileSync(join(dir, LOCK_FILE), `${JSON.stringify({ host: hostname(), startedAt: '2026-01-02T03:04:05.000Z', ...fields })}\n`);
const onLinux = process.platform === 'linux';

describe.runIf(onLinux)('the lock on this machine (real /proc)', () => {
  it("a lock naming this process's own pid, left by an earlier process (a restarted container), is taken over", () => {
    const dir = folder();
    // Written by the old run: same pid, another start time.
    writeLock(dir, { pid: process.pid, processStart: '1' });
    const lock = lockTournament(dir);
    expect(tookOverMessage(lock)).toContain(`left by process ${process.pid} on ${hostname()}, started 2026-01-02T03:04:05.000Z, whose pid is now this process's`);
    lock.release();
    // A lock from before locks named a start time, naming our pid, is no more ours.
    writeLock(dir, { pid: process.pid });
    const again = lockTournament(dir);
    expect(again.tookOver?.owner.pid).toBe(process.pid);
    again.release();
  });

  it('a lock naming an unrelated live process (pid 1, started at another time) is taken over', () => {
    const dir = folder();
    const init = probeProcess(1);
    expect(init.running).toBe(true);
    writeLock(dir, { pid: 1, processStart: `${Number(init.running ? init.start : 0) + 12345}` });
    const lock = lockTournament(dir);
    expect(tookOverMessage(lock)).toContain('whose pid 1 now belongs to another process: took it over');
    lock.release();
  });

  it('the same live process, pid and start time, is refused: this process twice, or pid 1 as it runs', () => {
    const dir = folder();
    const held = lockTournament(dir);
    expect(held.owner.processStart).toMatch(/^\d+$/);
    expect(() => lockTournament(dir)).toThrow(TournamentLocked);
    expect(() => lockTournament(dir)).toThrow(`being run by process ${process.pid} on ${hostname()}`);
    held.release();
    const init = probeProcess(1);
    writeLock(dir, { pid: 1, processStart: init.running ? init.start : null });
    expect(() => lockTournament(dir)).toThrow('being run by process 1');
  });

  it('writes pid, host, start time and boot id', () => {
    const dir = folder();
    const lock = lockTournament(dir);
    const written = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'));
    expect(written).toEqual({ pid: process.pid, host: hostname(), startedAt: expect.any(String), processStart: lock.owner.processStart, bootId: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() });
    lock.release();
  });
});

describe('probeProcess reads <proc>/<pid>/stat', () => {
  const proc = join(root, 'proc');
  const stat = (pid: number, text: string) => {
    mkdirSync(join(proc, String(pid)), { recursive: true });
    writeFileSync(join(proc, String(pid), 'stat'), text);
  };
  // Fields from 3 on: state, ppid, pgrp, session, tty, tpgid, flags, 4 fault counts, 4 times, priority, nice, threads, itrealvalue, starttime.
  const after = (state: string, start: number) => `${state} 1 1 1 0 -1 4194304 101 0 0 0 0 0 0 0 20 0 1 0 ${start} 3133440 391`;

  it('a running process with its start time, whatever its command holds', () => {
    stat(10, `10 (node) ${after('S', 45539)}`);
    stat(11, `11 (a) b (c) ${after('R', 777)}`);
    expect(probeProcess(10, proc)).toEqual({ running: true, start: '45539' });
    expect(probeProcess(11, proc)).toEqual({ running: true, start: '777' });
  });

  it('a zombie (killed with -9, not yet reaped) or a pid with no entry does not run', () => {
    stat(12, `12 (node) ${after('Z', 45539)}`);
    expect(probeProcess(12, proc)).toEqual({ running: false });
    expect(probeProcess(13, proc)).toEqual({ running: false });
  });
});

describe('a lock from before this machine restarted', () => {
  it('is stale even where its pid runs again with the same start time', () => {
    const dir = folder();
    const env = (bootId: string): LockEnvironment => ({ pid: 50, host: 'h', now: () => new Date(0), bootId, probe: () => ({ running: true, start: '100' }) });
    lockTournament(dir, { ...env('boot-a'), pid: 40 });
    const lock = lockTournament(dir, env('boot-b'));
    expect(tookOverMessage(lock)).toContain('left by process 40 on h, started 1970-01-01T00:00:00.000Z, which ran before this machine restarted: took it over');
    expect(() => lockTournament(dir, { ...env('boot-b'), pid: 60 })).toThrow('being run by process 50 on h');
  });
});
