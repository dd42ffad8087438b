/**
 * Tournament throughput for `npm run bench`: non-LLM episodes per second on 1 and 2 worker
 * threads, and over a Redis queue with 2 worker processes beside 2 threads in the local pool.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchRow } from './match';
import { DEFAULT_EPISODES_PER_JOB } from '../tournament/jobs';
import { startLocalRedis } from '../tournament/localRedis';
import { parseRedisAddress } from '../tournament/redis';
import type { NodePlatform } from '../teams/nodePlatform';
import { type RunOptions, runTournament } from '../tournament/run';

const BENCH_SETTINGS = { teams: ['bt-scripted', 'heuristic'], seed: 1 };

async function episodesPerSecond(platform: NodePlatform, episodes: number, options: Pick<RunOptions, 'workers' | 'queue'>): Promise<number> {
  const out = mkdtempSync(join(tmpdir(), 'hillmind-bench-'));
  try {
    const started = performance.now();
    const result = await runTournament({ settings: { ...BENCH_SETTINGS, episodes }, platform, out, resume: false, ...options });
    return result.played / ((performance.now() - started) / 1000);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Enough episodes that starting the worker threads (about a second each) is a small part. */
const benchEpisodes = (seconds: number) => Math.max(500, Math.round(500 * seconds));

export async function benchTournament(seconds: number, platform: NodePlatform): Promise<BenchRow[]> {
  const episodes = benchEpisodes(seconds);
  const one = await episodesPerSecond(platform, episodes, { workers: 1 });
  const two = await episodesPerSecond(platform, episodes, { workers: 2 });
  return [
    { name: 'tournament bt-scripted vs heuristic, 1 worker', value: one, unit: 'episodes/s', target: 100 },
    { name: 'tournament bt-scripted vs heuristic, 2 workers', value: two, unit: 'episodes/s', target: 100 },
    { name: 'tournament speed-up, 2 workers over 1', value: two / one, unit: 'x' },
    { name: 'study round robin (3,000 episodes), 2 workers', value: 3000 / two, unit: 's', target: 30, lowerIsBetter: true },
  ];
}

/** CPU seconds a process has used (all its threads), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const ownCpuSeconds = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};

/** `npm run worker` processes, each on one thread; resolves once each waits for tournaments. */
async function startWorkers(url: string, count: number): Promise<ChildProcess[]> {
  const script = fileURLToPath(new URL('../cli/worker.ts', import.meta.url));
  const workers = Array.from({ length: count }, () =>
    spawn(process.execPath, ['--import', 'tsx', script, '--queue', url, '--workers', '1'], { stdio: ['ignore', 'pipe', 'inherit'] }),
  );
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((resolve, reject) => {
          let output = '';
          worker.stdout!.on('data', (chunk: Buffer) => {
            output += chunk.toString();
            if (output.includes('waiting for tournaments')) resolve();
          });
          worker.once('exit', (code) => reject(new Error(`a bench worker exited (${code}): ${output}`)));
        }),
    ),
  );
  for (const worker of workers) worker.stdout!.resume();
  return workers;
}

/**
 * The queue's cost: the same tournament on 2 threads in the local pool and through Redis to
 * 2 worker processes of one thread each (already running, as workers are), interleaved,
 * best of two each. Also the CPU all processes spend per episode beyond each way's fixed
 * costs (threads starting, connecting, planning: read from a short run), which other work
 * on a shared machine disturbs far less than the time. `server` is the redis-server to start
 * (null: skipped).
 */
export async function benchQueue(seconds: number, platform: NodePlatform, server: string | null): Promise<BenchRow[]> {
  if (!server) {
    console.log('(skipped: no redis-server; apt-get install -y redis-server or set REDIS_SERVER)');
    return [];
  }
  const redis = await startLocalRedis(server);
  const workers = await startWorkers(redis.url, 2);
  const pids = [redis.pid, ...workers.map((w) => w.pid!)];
  const cpuNow = () => ownCpuSeconds() + pids.reduce((s, pid) => s + cpuSeconds(pid), 0);
  const address = parseRedisAddress(redis.url);
  const episodes = benchEpisodes(seconds);
  const SHORT = 100;
  const measure = async (options: Pick<RunOptions, 'workers' | 'queue'>, n: number) => {
    const cpu = cpuNow();
    const rate = await episodesPerSecond(platform, n, options);
    return { rate, cpu: cpuNow() - cpu };
  };
  const ways = {
    local: { workers: 2 },
    queue: { workers: 0, queue: { redis: address, episodesPerJob: DEFAULT_EPISODES_PER_JOB } },
    single: { workers: 0, queue: { redis: address, episodesPerJob: 1 } },
  };
  type Way = keyof typeof ways;
  try {
    const fixed = {} as Record<Way, number>;
    for (const way of Object.keys(ways) as Way[]) fixed[way] = (await measure(ways[way], SHORT)).cpu; // also warms the workers up
    const runs: Record<Way, { rate: number; cpu: number }[]> = { local: [], queue: [], single: [] };
    for (let round = 0; round < 2; round++) for (const way of Object.keys(ways) as Way[]) runs[way].push(await measure(ways[way], episodes));
    const rate = (way: Way) => Math.max(...runs[way].map((r) => r.rate));
    // CPU per episode past the fixed costs (ms), from the mean of the long runs and the short one.
    const cpu = (way: Way) => ((runs[way].reduce((s, r) => s + r.cpu, 0) / runs[way].length - fixed[way]) / (episodes - SHORT)) * 1000;
    const per = `${DEFAULT_EPISODES_PER_JOB}/job`;
    return [
      { name: '2 threads in the local pool', value: rate('local'), unit: 'episodes/s' },
      { name: `Redis, 2 worker processes, ${DEFAULT_EPISODES_PER_JOB} episodes/job`, value: rate('queue'), unit: 'episodes/s' },
      { name: 'Redis, 2 worker processes, 1 episode/job', value: rate('single'), unit: 'episodes/s' },
      { name: `queue (${per}) over the local pool`, value: rate('queue') / rate('local'), unit: 'x', target: 0.9 },
      { name: 'queue (1/job) over the local pool', value: rate('single') / rate('local'), unit: 'x' },
      { name: 'CPU per episode, local pool', value: cpu('local'), unit: 'ms' },
      { name: `CPU per episode, queue (${per})`, value: cpu('queue'), unit: 'ms' },
      { name: 'CPU per episode, queue (1/job)', value: cpu('single'), unit: 'ms' },
      { name: `queue (${per}) over the local pool, by CPU`, value: cpu('local') / cpu('queue'), unit: 'x', target: 0.9 },
      { name: 'queue (1/job) over the local pool, by CPU', value: cpu('local') / cpu('single'), unit: 'x' },
    ];
  } finally {
    for (const worker of workers) worker.kill('SIGKILL');
    await redis.stop();
  }
}
