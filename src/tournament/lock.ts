/**
 * One tournament folder, one writer: the coordinator (or the local run) holds
 * `tournament.lock` in the folder while it plays, so a second process on the same --out
 * (a second --resume during a run) is refused before it reads or writes a record, naming
 * the process that holds it. The file is created exclusively (O_EXCL), so two processes
 * starting at once cannot both take it.
 *
 * A lock left by a process that died (kill -9, a power cut, a restarted container) is
 * stale, and is taken over, said aloud. A pid alone cannot tell: pids are reused, and a
 * container restarted in a fresh pid namespace hands its run the very pid its old lock
 * names. So the lock names its holder by pid, the process's start time (field 22 of
 * /proc/<pid>/stat, clock ticks since boot) and the machine's boot id: the holder still
 * runs only if a live, non-zombie process has that pid and that start time, in the same
 * boot. Where /proc is missing (not Linux) only the pid is checked. A lock from another
 * host cannot be checked from here and is never taken over.
 */
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

export const LOCK_FILE = 'tournament.lock';

export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  /** ISO time the holder took the lock. */
  readonly startedAt: string;
  /** The holder's start time as its machine counts it (/proc/<pid>/stat), where known: with the pid, it names one process. */
  readonly processStart?: string;
  /** The machine's boot id, where known: a lock from an earlier boot has no live holder. */
  readonly bootId?: string;
}

const ownerSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string().min(1).max(300),
  startedAt: z.string().max(100),
  processStart: z.string().min(1).max(40).optional(),
  bootId: z.string().min(1).max(100).optional(),
});

/** What this host says of a pid: not running (none, or a zombie left by kill -9), or running since `start` (null: unknown). */
export type ProcessProbe = { readonly running: false } | { readonly running: true; readonly start: string | null };

export interface LockEnvironment {
  readonly pid: number;
  readonly host: string;
  readonly now: () => Date;
  /** This machine's boot id, or null where it cannot be read. */
  readonly bootId: string | null;
  /** Whether a process of this host runs with that pid, and since when. */
  readonly probe: (pid: number) => ProcessProbe;
}

/** Signal 0 tests a pid without touching it: ESRCH is no such process, EPERM one of another user. */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A pid as `<proc>/<pid>/stat` shows it: its state and start time follow the command in
 * parentheses (which may itself hold spaces and parentheses). Where there is no /proc (not
 * Linux) signal 0 says whether it runs, and nothing says since when.
 */
export function probeProcess(pid: number, proc = '/proc'): ProcessProbe {
  if (!existsSync(proc)) return pidAlive(pid) ? { running: true, start: null } : { running: false };
  let stat: string;
  try {
    stat = readFileSync(join(proc, String(pid), 'stat'), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { running: false };
    return pidAlive(pid) ? { running: true, start: null } : { running: false };
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (the state), so field 22 (starttime) is fields[19].
  const state = fields[0];
  if (state === 'Z' || state === 'X' || state === 'x') return { running: false };
  const start = fields[19];
  return { running: true, start: start && /^\d+$/.test(start) ? start : null };
}

function readBootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** This process, as its lock names it. */
export function thisProcess(): LockEnvironment {
  return { pid: process.pid, host: hostname(), now: () => new Date(), bootId: readBootId(), probe: (pid) => probeProcess(pid) };
}

/** A lock whose holder is gone, and how that was told (for the notice). */
export interface StaleLock {
  readonly owner: LockOwner;
  readonly why: string;
}

export interface TournamentLock {
  readonly path: string;
  readonly owner: LockOwner;
  /** The gone process whose lock this one replaced, if any. */
  readonly tookOver: StaleLock | null;
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
  if (!parsed.success) throw new Error(`${path} is not a lock (expected {pid, host, startedAt}); if no process uses what it guards, delete it`);
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

/**
 * Why the lock's holder, a process of this host, is gone (what the take-over notice says), or
 * null while it may still run. Its pid alone is not enough: a live process with another
 * start time (an unrelated one, or this very process after a container restart) is not it.
 */
function whyStale(holder: LockOwner, env: LockEnvironment): string | null {
  if (holder.bootId && env.bootId && holder.bootId !== env.bootId) return 'which ran before this machine restarted';
  const now = env.probe(holder.pid);
  if (!now.running) return 'which no longer runs';
  if (holder.processStart && now.start && holder.processStart !== now.start) {
    return holder.pid === env.pid ? `whose pid is now this process's (a restart in a fresh pid namespace)` : `whose pid ${holder.pid} now belongs to another process`;
  }
  // A lock from before locks named their holder's start cannot be this process's, which names its own.
  if (holder.pid === env.pid && !holder.processStart && now.start) return "whose pid is now this process's";
  return null;
}

/** Why a lock could not be taken: its holder is on another host, still runs, or took it at the same moment as this process. */
export type LockRefusal = 'other-host' | 'running' | 'race';

/** Take `dir`'s lock, or throw TournamentLocked naming the process that holds it. */
export function lockTournament(dir: string, env: LockEnvironment = thisProcess()): TournamentLock {
  const path = join(dir, LOCK_FILE);
  return holdLock(path, env, (holder, refusal) => {
    const why =
      refusal === 'other-host'
        ? `Its liveness cannot be checked from ${env.host}: if that process is gone, delete ${path} and run again.`
        : refusal === 'running'
          ? 'One folder takes one writer: wait for it to end, stop it, or choose another --out.'
          : 'Another process took the lock at the same moment.';
    return new TournamentLocked(path, holder, why);
  });
}

/**
 * Take the lock at `path` for this process (a file one process writes at a time: a
 * tournament's folder, the server's decision cache), taking over a stale one; else throw
 * the error `refuse` makes of its holder and why.
 */
export function holdLock(path: string, env: LockEnvironment, refuse: (holder: LockOwner, refusal: LockRefusal) => Error): TournamentLock {
  const ownStart = env.probe(env.pid);
  const owner: LockOwner = {
    pid: env.pid,
    host: env.host,
    startedAt: env.now().toISOString(),
    ...(ownStart.running && ownStart.start ? { processStart: ownStart.start } : {}),
    ...(env.bootId ? { bootId: env.bootId } : {}),
  };
  let tookOver: StaleLock | null = null;
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
    if (holder.host !== env.host) throw refuse(holder, 'other-host');
    const why = whyStale(holder, env);
    if (why === null) throw refuse(holder, 'running');
    // Stale. Remove it only if it is still the same stale lock.
    const again = readOwner(path);
    if (again && (again.pid !== holder.pid || again.startedAt !== holder.startedAt)) continue;
    rmSync(path, { force: true });
    tookOver = { owner: holder, why };
  }
  throw refuse(readOwner(path) ?? owner, 'race');
}

/** What to tell the user about a stale lock that was taken over. */
export function tookOverMessage(lock: TournamentLock): string | null {
  return lock.tookOver ? `${lock.path} was left by ${describe(lock.tookOver.owner)}, ${lock.tookOver.why}: took it over` : null;
}
