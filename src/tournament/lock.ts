/**
 * One tournament folder, one writer: the coordinator (or the local run) holds
 * `tournament.lock` in the folder while it plays, so a second process on the same --out
 * (a second --resume during a run) is refused before it reads or writes a record, naming
 * the process that holds it. The file is created exclusively (O_EXCL), so two processes
 * starting at once cannot both take it.
 *
 * A lock left by a process that died (kill -9, a power cut) is stale: on the same host a
 * pid that no longer runs is told apart (signal 0), and its lock is taken over, said
 * aloud. A lock from another host cannot be checked from here and is never taken over.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

export const LOCK_FILE = 'tournament.lock';

export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  /** ISO time the holder took the lock. */
  readonly startedAt: string;
}

const ownerSchema = z.object({ pid: z.number().int().positive(), host: z.string().min(1).max(300), startedAt: z.string().max(100) });

export interface LockEnvironment {
  readonly pid: number;
  readonly host: string;
  readonly now: () => Date;
  /** Whether a process of this host runs with that pid. */
  readonly alive: (pid: number) => boolean;
}

/** Signal 0 tests a pid without touching it: ESRCH is no such process, EPERM one of another user. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const THIS_PROCESS: LockEnvironment = { pid: process.pid, host: hostname(), now: () => new Date(), alive: pidAlive };

export interface TournamentLock {
  readonly path: string;
  readonly owner: LockOwner;
  /** The dead process whose lock this one replaced, if any. */
  readonly tookOver: LockOwner | null;
  /** Remove the lock, if it is still this process's. */
  release(): void;
}

/** Another process holds the folder's lock. */
export class TournamentLocked extends Error {
  constructor(
    readonly path: string,
    readonly owner: LockOwner,
    why: string,
  ) {
    super(`${path}: this tournament is being run by process ${owner.pid} on ${owner.host}, started ${owner.startedAt}. ${why}`);
    this.name = 'TournamentLocked';
  }
}

const describe = (o: LockOwner) => `process ${o.pid} on ${o.host}, started ${o.startedAt}`;

/** Read a lock file; null when it is gone, an error naming it when it is not a lock. */
function readOwner(path: string): LockOwner | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let parsed: ReturnType<typeof ownerSchema.safeParse>;
  try {
    parsed = ownerSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = ownerSchema.safeParse(undefined);
  }
  if (!parsed.success) throw new Error(`${path} is not a tournament lock (expected {pid, host, startedAt}); if no run uses this folder, delete it`);
  return parsed.data;
}

function tryCreate(path: string, owner: LockOwner): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new Error(`cannot create ${path}: ${(err as Error).message}`);
  }
  try {
    writeSync(fd, `${JSON.stringify(owner)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Take `dir`'s lock, or throw TournamentLocked naming the process that holds it. */
export function lockTournament(dir: string, env: LockEnvironment = THIS_PROCESS): TournamentLock {
  const path = join(dir, LOCK_FILE);
  const owner: LockOwner = { pid: env.pid, host: env.host, startedAt: env.now().toISOString() };
  let tookOver: LockOwner | null = null;
  // Twice at most: a stale lock is removed once, then created as ours (or lost to a racer).
  for (let attempt = 0; attempt < 2; attempt++) {
    if (tryCreate(path, owner)) {
      return {
        path,
        owner,
        tookOver,
        release() {
          const now = readOwner(path);
          if (now && now.pid === owner.pid && now.host === owner.host && now.startedAt === owner.startedAt) rmSync(path, { force: true });
        },
      };
    }
    const holder = readOwner(path);
    if (!holder) continue; // released between our two looks
    if (holder.host !== env.host) {
      throw new TournamentLocked(path, holder, `Its liveness cannot be checked from ${env.host}: if that process is gone, delete ${path} and run again.`);
    }
    if (holder.pid === env.pid || env.alive(holder.pid)) {
      throw new TournamentLocked(path, holder, 'One folder takes one writer: wait for it to end, stop it, or choose another --out.');
    }
    // Stale: its process is gone. Remove it only if it is still the same stale lock.
    const again = readOwner(path);
    if (again && (again.pid !== holder.pid || again.startedAt !== holder.startedAt)) continue;
    rmSync(path, { force: true });
    tookOver = holder;
  }
  const holder = readOwner(path);
  throw new TournamentLocked(path, holder ?? owner, 'Another process took the lock at the same moment.');
}

/** What to tell the user about a stale lock that was taken over. */
export function tookOverMessage(lock: TournamentLock): string | null {
  return lock.tookOver ? `${lock.path} was left by ${describe(lock.tookOver)}, which no longer runs: took it over` : null;
}
