/**
 * Tournaments over a real redis-server (Debian's package, on a free loopback port): worker
 * processes as users start them, one killed mid-run; the coordinator killed and resumed; a
 * worker with other models refused; a job that always fails; an unreachable Redis. Every
 * wait is for a condition (with a generous limit), never for a time.
 *
 * Skipped, with a message, only off CI when redis-server is missing (CI=true fails instead).
 */
import { createHash } from 'node:crypto';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue, Worker } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_PREFIX, REGISTRY_KEY, queueName } from '../../src/tournament/jobs';
import { type LocalRedis, redisServerPath, startLocalRedis } from '../../src/tournament/localRedis';
import { tournamentId } from '../../src/tournament/manifest';
import { type EpisodeRecord, readRecords } from '../../src/tournament/records';
import { type RedisAddress, parseRedisAddress } from '../../src/tournament/redis';
import { runTournament } from '../../src/tournament/run';
import { nodeTestPlatform } from '../helpers/platform';
import { tempDirs } from '../helpers/tempDirs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVER = redisServerPath(process.env);
const CI = process.env.CI === 'true';
if (!SERVER && !CI) console.warn('skipping the queue tests: no redis-server here (apt-get install -y redis-server, or set REDIS_SERVER)');

const freshDir = tempDirs('queue');
const children: ChildProcess[] = [];
const stopChild = (child: ChildProcess) => {
  if (child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(child.pid!, 'SIGCONT');
      process.kill(child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
};

/** Poll `probe` until it returns something truthy; fail naming `what` after `timeoutMs`. */
async function waitFor<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 90_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface WorkerProcess {
  readonly child: ChildProcess;
  readonly name: string;
  output(): string;
}

/** `npm run worker` as a user starts it, on one thread, with a 2 s lock; resolves once it waits for work. */
async function startWorker(url: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/worker.ts', '--queue', url, '--workers', '1', '--concurrency', '2', '--lock-seconds', '2'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const worker = { child, name: `${hostname()}:${child.pid}`, output: () => output };
  await waitFor('the worker to start', () => {
    if (child.exitCode !== null) throw new Error(`the worker exited (${child.exitCode}): ${output}`);
    return output.includes('waiting for tournaments');
  });
  return worker;
}

function cli(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

const SETTINGS = { teams: ['bt-scripted', 'heuristic', 'random'], episodes: 30, seed: 11 };
const TOTAL = 3 * 30;

describe.skipIf(!SERVER && !CI)('tournaments over a Redis queue', () => {
  let redis: LocalRedis;
  let address: RedisAddress;
  /** The same tournament played on this machine's threads alone. */
  let reference: Map<string, EpisodeRecord>;

  beforeAll(async () => {
    if (!SERVER) throw new Error('CI=true but there is no redis-server: .ci/run installs it (apt-get install -y redis-server)');
    redis = await startLocalRedis(SERVER);
    address = parseRedisAddress(redis.url);
    const local = await runTournament({ settings: SETTINGS, platform: nodeTestPlatform(), out: freshDir(), workers: 2, resume: false });
    reference = new Map(local.records.map((r) => [r.key, r]));
  });
  /** Redis servers of single tests: stopped after each test, even one that never ended. */
  const ownRedis: LocalRedis[] = [];
  const startOwnRedis = async (port?: number) => {
    const started = await startLocalRedis(SERVER!, [], port);
    ownRedis.push(started);
    return started;
  };
  afterEach(async () => {
    children.splice(0).forEach(stopChild);
    await Promise.all(ownRedis.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => redis?.stop());

  /** The tournament's queue, once its coordinator has written the manifest. */
  const queueOf = async (out: string) => {
    const manifestPath = join(out, 'manifest.json');
    await waitFor('the manifest', () => existsSync(manifestPath) && readFileSync(manifestPath, 'utf8').endsWith('\n'));
    const id = tournamentId(JSON.parse(readFileSync(manifestPath, 'utf8')));
    return { id, queue: new Queue(queueName(id), { connection: address.options, prefix: QUEUE_PREFIX }) };
  };

  const expectEveryEpisodeOnceAsPlayedLocally = (out: string) => {
    const records = readRecords(join(out, 'episodes.jsonl'));
    expect(records).toHaveLength(TOTAL);
    expect(new Set(records.map((r) => r.key)).size).toBe(TOTAL);
    // Each record as played on one machine, stamped with this tournament (the reference has its own id).
    const id = tournamentId(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')));
    for (const r of records) expect(r).toEqual({ ...reference.get(r.key), tournament: id, tournamentSeed: SETTINGS.seed });
  };

  it('two workers, one killed with kill -9 mid-run: every episode recorded once, each as a single-machine run plays it', { timeout: 180_000 }, async () => {
    const [a, b] = await Promise.all([startWorker(redis.url), startWorker(redis.url)]);
    // b is held until a has been killed, so a surely has jobs to lose.
    process.kill(b.child.pid!, 'SIGSTOP');
    const out = freshDir();
    const events: string[] = [];
    let settled = false;
    const run = runTournament({ settings: SETTINGS, platform: nodeTestPlatform(), out, workers: 0, resume: false, queue: { redis: address, episodesPerJob: 1, onEvent: (m) => events.push(m) } });
    run.finally(() => (settled = true)).catch(() => {});
    const { queue } = await queueOf(out);
    const holdsAJob = async () => (await queue.getJobs(['active'])).some((job) => job.processedBy === a.name);
    // Freeze a while it holds a job (so the job is surely mid-run), then kill it.
    let killed = false;
    while (!killed && !settled) {
      if (!(await holdsAJob())) {
        await new Promise((r) => setTimeout(r, 5));
        continue;
      }
      process.kill(a.child.pid!, 'SIGSTOP');
      if (await holdsAJob()) {
        process.kill(a.child.pid!, 'SIGKILL');
        killed = true;
      } else {
        process.kill(a.child.pid!, 'SIGCONT');
      }
    }
    process.kill(b.child.pid!, 'SIGCONT');
    const result = await run;
    await queue.close();
    expect(killed).toBe(true);
    expectEveryEpisodeOnceAsPlayedLocally(out);
    // The killed worker's jobs went back to the queue through BullMQ's stalled-job check.
    expect(result.queue!.retriedAfterStall.length).toBeGreaterThan(0);
    expect(events.some((m) => m.includes(`their worker went silent, so ${b.name} played them again`))).toBe(true);
    expect(result.queue!.collected).toBe(TOTAL);
    expect(Object.values(result.queue!.shares).reduce((s, n) => s + n, 0)).toBe(TOTAL);
    expect(result.queue!.shares[b.name]).toBeGreaterThan(0);
    // The coordinator played none itself.
    expect(Object.keys(result.queue!.shares).filter((name) => name !== a.name && name !== b.name)).toEqual([]);
  });

  it('with --workers the coordinator\'s own threads take jobs too', { timeout: 120_000 }, async () => {
    const result = await runTournament({ settings: { ...SETTINGS, episodes: 4 }, platform: nodeTestPlatform(), out: freshDir(), workers: 1, resume: false, queue: { redis: address } });
    expect(result.queue!.shares).toEqual({ [`${hostname()}:${process.pid} (coordinator)`]: 12 });
    for (const r of result.records) expect(r.hash).toBe(reference.get(r.key)!.hash);
  });

  it('the coordinator killed with kill -9 and resumed: no episode lost or repeated', { timeout: 180_000 }, async () => {
    const worker = await startWorker(redis.url);
    const out = freshDir();
    const path = join(out, 'episodes.jsonl');
    const args = ['--teams', SETTINGS.teams.join(','), '--episodes', String(SETTINGS.episodes), '--seed', String(SETTINGS.seed), '--out', out, '--queue', redis.url, '--episodes-per-job', '1'];
    const coordinator = spawn(process.execPath, ['--import', 'tsx', 'src/cli/tournament.ts', ...args], { cwd: ROOT, stdio: 'ignore' });
    children.push(coordinator);
    const { id, queue } = await queueOf(out);
    const recorded = () => existsSync(path) && readFileSync(path, 'utf8').includes('\n');
    // Hold the worker once a job of it has finished (so work is surely left), wait for the
    // coordinator to record it, kill the coordinator, then let the worker finish the queue
    // while no coordinator runs.
    await waitFor('a first finished job', async () => recorded() || ((await queue.getJobCounts('completed')).completed ?? 0) > 0);
    process.kill(worker.child.pid!, 'SIGSTOP');
    await waitFor('a first record', recorded);
    const left = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    process.kill(coordinator.pid!, 'SIGKILL');
    await waitFor('the coordinator to die', () => coordinator.signalCode !== null);
    process.kill(worker.child.pid!, 'SIGCONT');
    expect(Object.values(left).reduce((s, n) => s + n, 0)).toBeGreaterThan(0);
    await waitFor('the worker to finish the queue', async () => Object.values(await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')).every((n) => n === 0));
    const before = readRecords(path).length;
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(TOTAL);

    const resumed = await runTournament({ settings: SETTINGS, platform: nodeTestPlatform(), out, workers: 0, resume: true, queue: { redis: address, episodesPerJob: 1 } });
    expect(resumed.skipped).toBe(before);
    expect(resumed.played).toBe(TOTAL - before);
    expectEveryEpisodeOnceAsPlayedLocally(out);
    // Finished: the tournament is gone from the registry and its queue is empty.
    const client = await queue.client;
    expect(await client.hgetall(REGISTRY_KEY)).not.toHaveProperty(id);
    expect(Object.values(await queue.getJobCounts()).every((n) => n === 0)).toBe(true);
    await queue.close();
  });

  it('a worker whose models differ refuses the tournament, naming the difference; the others play it', { timeout: 180_000 }, async () => {
    const models = freshDir();
    cpSync(join(ROOT, 'models'), models, { recursive: true });
    appendFileSync(join(models, 'flat.onnx'), Buffer.from([0]));
    // A model that is whole, just not the coordinator's: its card carries its own digest.
    const card = JSON.parse(readFileSync(join(models, 'flat.json'), 'utf8')) as { sha256: string };
    card.sha256 = createHash('sha256').update(readFileSync(join(models, 'flat.onnx'))).digest('hex');
    writeFileSync(join(models, 'flat.json'), JSON.stringify(card));
    const stranger = await startWorker(redis.url, { HILLMIND_MODELS: models });
    const events: string[] = [];
    let helper: Promise<{ name: string }> | null = null;
    // Only once the stranger has refused does a worker with the shipped models start.
    const result = await runTournament({
      settings: { teams: ['flat', 'heuristic'], episodes: 4, seed: 2 },
      platform: nodeTestPlatform(),
      out: freshDir(),
      workers: 0,
      resume: false,
      queue: {
        redis: address,
        onEvent(message) {
          events.push(message);
          if (message.includes('refused')) helper ??= startWorker(redis.url);
        },
      },
    });
    const difference = /model:flat is [0-9a-f]{16} here, [0-9a-f]{16} in the manifest/;
    expect(result.queue!.refusals[stranger.name]).toMatch(difference);
    expect(events.find((m) => m.startsWith(`worker ${stranger.name} refused this tournament`))).toMatch(difference);
    expect(stranger.output()).toMatch(new RegExp(`refused tournament \\S+ \\(flat, heuristic\\): ${difference.source}`));
    expect(Object.keys(result.queue!.shares)).toEqual([(await helper!).name]);
    expect(result.records).toHaveLength(4);
  });

  it('records that come back twice (a retried job, a job returning another job\'s episode) are appended once', { timeout: 120_000 }, async () => {
    const out = freshDir();
    const run = runTournament({ settings: SETTINGS, platform: nodeTestPlatform(), out, workers: 0, resume: false, queue: { redis: address, episodesPerJob: 5 } });
    const { queue } = await queueOf(out);
    const first = reference.get(`${SETTINGS.teams[0]}|${SETTINGS.teams[1]}|0`)!;
    // A worker that answers from the reference, each record twice, and the first episode every time.
    const echo = new Worker(
      queue.name,
      async (job) => {
        const mine = (job.data.episodes as { key: string }[]).map((e) => reference.get(e.key)!);
        return { worker: 'echo', records: [first, ...mine, ...mine] };
      },
      { connection: address.options, prefix: QUEUE_PREFIX, concurrency: 4 },
    );
    const result = await run;
    await echo.close();
    await queue.close();
    expectEveryEpisodeOnceAsPlayedLocally(out);
    expect(result.queue!.shares).toEqual({ echo: TOTAL });
  });

  it('a job that fails on every attempt is reported with its error, and the run ends naming it', { timeout: 120_000 }, async () => {
    const out = freshDir();
    const events: string[] = [];
    const run = runTournament({
      settings: { teams: ['bt-scripted', 'heuristic'], episodes: 2, seed: 4 },
      platform: nodeTestPlatform(),
      out,
      workers: 0,
      resume: false,
      queue: { redis: address, episodesPerJob: 2, onEvent: (m) => events.push(m) },
    });
    run.catch(() => {});
    const { id, queue } = await queueOf(out);
    const broken = new Worker(
      queueName(id),
      async () => {
        throw new Error('boom: no arena today');
      },
      { connection: address.options, prefix: QUEUE_PREFIX },
    );
    await expect(run).rejects.toThrow(/2 episodes could not be played: bt-scripted\|heuristic\|0-1 \(3 attempts\): boom: no arena today.*--resume/);
    expect(events).toContain('episodes bt-scripted|heuristic|0-1 failed after 3 attempts: boom: no arena today');
    await broken.close();
    await queue.close();
  });

  it('Redis restarted empty mid-run: the coordinator registers the tournament again and re-adds the jobs; every episode recorded once', { timeout: 180_000 }, async () => {
    // A Redis of its own, restarted empty on the same port (no persistence: --save '' --appendonly no).
    let own = await startOwnRedis();
    const worker = await startWorker(own.url);
    const out = freshDir();
    const path = join(out, 'episodes.jsonl');
    const events: string[] = [];
    const run = runTournament({ settings: SETTINGS, platform: nodeTestPlatform(), out, workers: 0, resume: false, queue: { redis: parseRedisAddress(own.url), episodesPerJob: 1, onEvent: (m) => events.push(m) } });
    run.catch(() => {});
    await waitFor('a first record', () => existsSync(path) && readFileSync(path, 'utf8').includes('\n'));
    await own.stop();
    own = await startOwnRedis(own.port);
    const result = await run;
    expect(events.find((m) => m.includes('lost this tournament'))).toMatch(
      new RegExp(`^Redis at redis://127\\.0\\.0\\.1:${own.port} lost this tournament \\(restarted without its data\\?\\): registered it again and re-added \\d+ jobs$`),
    );
    expect(result.records).toHaveLength(TOTAL);
    expectEveryEpisodeOnceAsPlayedLocally(out);
    expect(worker.child.exitCode).toBe(null);
  });

  it('a Redis that stays down ends the run within the silence bound, naming it, and frees the folder', { timeout: 120_000 }, async () => {
    const own = await startOwnRedis();
    const out = freshDir();
    let queued = false;
    const run = runTournament({
      settings: SETTINGS,
      platform: nodeTestPlatform(),
      out,
      workers: 0,
      resume: false,
      queue: { redis: parseRedisAddress(own.url), silenceMs: 3000 },
      onProgress: (_done, _total, shares) => (queued ||= shares !== undefined),
    });
    run.catch(() => {});
    await waitFor('the jobs to be queued', () => queued);
    await own.stop();
    await expect(run).rejects.toThrow(new RegExp(`^Redis at redis://127\\.0\\.0\\.1:${own.port} has not answered for 3 s.*run the same command with --resume\\.$`));
    expect(existsSync(join(out, 'tournament.lock'))).toBe(false);
  });

  it('an unreachable Redis is a clear error at once, for the coordinator and for a worker', { timeout: 120_000 }, async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    const out = join(freshDir(), 'never');
    await expect(runTournament({ settings: SETTINGS, platform: nodeTestPlatform(), out, workers: 0, resume: false, queue: { redis: parseRedisAddress(url) } })).rejects.toThrow(
      new RegExp(`cannot reach Redis at ${url.replace(/\./g, '\\.')}: connect ECONNREFUSED`),
    );
    expect(existsSync(out)).toBe(false);
    const worker = await cli('src/cli/worker.ts', ['--queue', url]);
    expect(worker.code).toBe(1);
    expect(worker.stderr).toMatch(/^error: cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+: connect ECONNREFUSED/);
  });
});

describe.concurrent('npm run worker', () => {
  it('--help and -h print the usage and exit 0', async ({ expect }) => {
    for (const flag of ['--help', '-h']) {
      const r = await cli('src/cli/worker.ts', [flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^usage: npm run worker -- --queue redis:\/\/host:port/);
    }
  });

  it('an unknown option, a missing --queue or an address that is not Redis exits 2 with the reason', async ({ expect }) => {
    const unknown = await cli('src/cli/worker.ts', ['--queue', 'redis://127.0.0.1:1', '--turbo']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--turbo/);
    const missing = await cli('src/cli/worker.ts', []);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--queue is required/);
    const http = await cli('src/cli/worker.ts', ['--queue', 'http://127.0.0.1:6379']);
    expect(http.code).toBe(2);
    expect(http.stderr).toMatch(/--queue must be a redis:\/\/ or rediss:\/\/ URL/);
  });
});
